package io.llmperf4j.run;

import io.llmperf4j.report.summary.Plural;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.jsonl.RequestJournal;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A run's results folder, checked and locked before any request is sent, so a long run never ends unable to write
 * and two runs never share a folder:
 * <ul>
 *   <li>a lock file ({@value #LOCK_FILE}, an OS file lock naming its holder) is held for the whole run; a second
 *       run into the folder meanwhile, from this or another process, refuses with the holder's pid, host and
 *       start;</li>
 *   <li>a folder that already holds results (any .json, .jsonl, .csv or .html file, at the top or one folder
 *       down, as a sweep writes) is refused unless {@code overwrite}: a rerun never silently replaces a kept run.
 *       Other files (a redirected stderr.txt, notes) do not count. With {@code overwrite}, the result files the
 *       earlier run listed ({@link RunFiles}) are replaced, so the folder never mixes two runs; but only once this
 *       run really writes: taking the folder touches none of them, {@link #replaceEarlier()} (when the measurement
 *       starts) moves them aside into {@value RunFiles#ASIDE}, and {@link #close()} deletes them when this run wrote
 *       a result file, or moves them back when it wrote none (an unreachable endpoint, a 401 at the pre-run check,
 *       Ctrl-C before the first level, a run that failed before writing). A caller that never calls
 *       {@link #replaceEarlier()} gets the same rule at {@link #close()}: the earlier files it did not rewrite are
 *       removed only when it wrote one.</li>
 * </ul>
 * A run that quits at once (a second signal, {@link #quit()}) settles the folder as far as it can: the earlier run's
 * files back when it recorded nothing, else kept aside and said where. A run killed outright leaves its lock file
 * behind but not the OS lock, so the next run takes it over; files it had moved aside are moved back by the next run
 * when it left no result of its own, else kept: {@code --overwrite} moves them into a visible
 * {@value #KEPT_PREFIX}{@code <time>} folder, and says so, before it sets the killed run's files aside. A run whose
 * every request failed ({@link #keepEarlierOverFailedRun()}) gives the folder back to the earlier run and keeps its
 * own files in {@value #FAILED_PREFIX}{@code <time>}.
 */
public final class ResultsFolder implements AutoCloseable {
    public static final String LOCK_FILE = ".llmperf4j.lock";
    /** Where --overwrite keeps the earlier run's files while the new run measures ({@link RunFiles#ASIDE}). */
    public static final String ASIDE = RunFiles.ASIDE;
    /** Where a run whose every request failed keeps its files, beside the earlier run it gave back the folder to. */
    public static final String FAILED_PREFIX = "failed-run-";
    /** Where the files an interrupted --overwrite run had set aside are kept when a later --overwrite run starts. */
    public static final String KEPT_PREFIX = "earlier-run-";
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT);

    private final Path lockFile;
    private final FileChannel channel;
    private final FileLock lock;
    /** The results folder, and the outermost folder of it this run created (null when it existed before). */
    private final Path dir;
    private final Path created;
    /** When this run took the folder, on the file system's clock: files modified since are this run's. */
    private FileTime since;
    /** Whether the earlier run's files are to be replaced (--overwrite). */
    private final boolean overwrite;
    /** Whether {@link #replaceEarlier()} ran, and whether {@link #close()} did. Guarded by this. */
    private boolean replaced;
    private boolean closed;
    /** Where the folder says what it did with files it kept or moved back (one line each). */
    private final PrintStream notices;
    /** Whether the files are settled already ({@link #keepEarlierOverFailedRun()}): close() leaves them. */
    private boolean settled;
    /** Whether an interrupted --overwrite run left {@value RunFiles#ASIDE} beside results of its own. */
    private boolean leftAside;
    /** Whether the measurement started ({@link #replaceEarlier}): a run without a folder then says nothing was saved. */
    private boolean measured;
    /** "Results written to" lines held until this run's files are settled ({@link #announceWritten}). */
    private final List<Written> held = new ArrayList<>();

    /** A "Results written to" line: where, on which stream, the files' names. */
    private record Written(PrintStream err, Path into, String names) {
        void print(Path where) {
            err.println("Results written to " + where.toAbsolutePath() + ": " + names);
        }
    }

    private ResultsFolder(Path lockFile, FileChannel channel, FileLock lock, Path dir, Path created,
                          boolean overwrite, PrintStream notices) {
        this.notices = notices;
        this.lockFile = lockFile;
        this.channel = channel;
        this.lock = lock;
        this.dir = dir;
        this.created = created;
        this.overwrite = overwrite;
    }

    /**
     * Creates the folder if needed, takes its lock and checks it holds no earlier results.
     *
     * @param dir       the results folder, or null when nothing is written (then nothing is locked)
     * @param overwrite true: files of an earlier run are replaced instead of refused
     * @param notices   where the folder says what it did with files it kept or moved back
     * @return the lock, to close when the run has written everything (a no-op for a null folder)
     * @throws RunFailedException when the folder cannot be written or another run holds it
     * @throws InvalidRequestException     when it holds earlier results and {@code overwrite} is false
     */
    public static ResultsFolder lock(Path dir, boolean overwrite, PrintStream notices) {
        if (dir == null) {
            return new ResultsFolder(null, null, null, null, null, false, notices);
        }
        for (Path p = dir.toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p) && !Files.isDirectory(p)) {
                throw new RunFailedException("results folder " + dir + " cannot be written: "
                        + (p.equals(dir.toAbsolutePath()) ? "it is" : p + " is") + " a file, not a folder");
            }
        }
        Path lockFile = dir.resolve(LOCK_FILE);
        Path created = null;
        for (Path p = dir.toAbsolutePath(); p != null && !Files.exists(p); p = p.getParent()) {
            created = p;
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new RunFailedException("results folder " + dir + " cannot be created: " + creationReason(dir, e)
                    + "; choose another --results-dir");
        }
        FileChannel channel;
        try {
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        } catch (IOException e) {
            removeCreated(dir, created);
            throw new RunFailedException("results folder " + dir + " cannot be written: " + reason(e));
        }
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // held by another run in this JVM
        } catch (IOException e) {
            closeQuietly(channel);
            throw new RunFailedException("results folder " + dir + " cannot be locked: " + reason(e));
        }
        if (lock == null) {
            // in use: the folder existed (its lock file is the other run's), so nothing here is removed
            String holder = holder(lockFile);
            closeQuietly(channel);
            throw new FolderInUseException("results folder " + dir + " is in use by another run (" + holder
                    + "); wait for it to end or choose another --results-dir");
        }
        ResultsFolder folder = new ResultsFolder(lockFile, channel, lock, dir, created, overwrite, notices);
        try {
            folder.writeHolder();
            // a level's files a killed run was writing: never whole, never placed, never a result (ResultFiles.write)
            RunFiles.deleteStaging(dir);
            // files a killed run had moved aside: back, unless that run left results of its own (then they are kept)
            Path aside = dir.resolve(RunFiles.ASIDE);
            if (Files.isDirectory(aside)) {
                if (earlierResult(dir) == null) {
                    RunFiles.restoreAside(dir);
                    folder.notice("results folder " + dir + ": moved the earlier run's files back from "
                            + RunFiles.ASIDE + ", where an interrupted --overwrite run that recorded nothing had set "
                            + "them aside");
                } else {
                    folder.leftAside = true;
                    // the killed run's files (written after it set the earlier ones aside), so --overwrite sets
                    // them aside as a whole, not only the files this run writes again
                    if (!Files.isRegularFile(dir.resolve(RunFiles.FILE_NAME))) {
                        RunFiles.record(dir, Files.getLastModifiedTime(aside));
                    }
                }
            }
            folder.since = Files.getLastModifiedTime(lockFile);
            if (!overwrite) {
                Path earlier = earlierResult(dir);
                if (earlier != null) {
                    throw new InvalidRequestException("results folder " + dir + " already holds results ("
                            + dir.relativize(earlier) + (folder.leftAside ? ", and in " + RunFiles.ASIDE + " the run "
                            + "an interrupted --overwrite run was replacing" : "") + "); give each run a folder of "
                            + "its own (e.g. --results-dir " + dir.resolve("<model>") + "), or --overwrite to "
                            + "replace them");
                }
            }
            return folder;
        } catch (IOException e) {
            folder.close();
            throw new RunFailedException("results folder " + dir + " cannot be written: " + reason(e));
        } catch (RuntimeException e) {
            folder.close();
            throw e;
        }
    }

    /**
     * With {@code overwrite}: the measurement starts, so the earlier run's listed files are moved aside (into
     * {@value RunFiles#ASIDE}) before this run writes its first file; {@link #close()} then deletes or restores them.
     * Once; a no-op without {@code overwrite} or a folder.
     *
     * @throws RunFailedException when they cannot be moved
     */
    public synchronized void replaceEarlier() {
        measured = true;
        if (channel == null || !overwrite || replaced || closed) return;
        try {
            Path aside = dir.resolve(RunFiles.ASIDE);
            if (leftAside && Files.isDirectory(aside)) {
                // the run an interrupted --overwrite run was replacing: kept, in sight, never removed unasked
                Path kept = newFolderName(KEPT_PREFIX, Files.getLastModifiedTime(aside).toInstant());
                Files.move(aside, kept);
                notice("results folder " + dir + ": the earlier run's files, which an interrupted --overwrite run "
                        + "had set aside in " + RunFiles.ASIDE + ", are kept in " + kept + " (remove it when it is "
                        + "not wanted)");
            }
            replaced = true; // from here what is set aside is this run's to settle
            RunFiles.moveAside(dir, since);
        } catch (IOException e) {
            throw new RunFailedException("results folder " + dir + ": the earlier run's files cannot be moved aside: "
                    + reason(e));
        }
    }

    /**
     * Settles the earlier run's files (deleted when this run wrote a result file, else left or moved back), lists
     * this run's, releases the lock and removes the lock file; then the folder itself, and the parents this run
     * created with it, when this run created them and left them empty (a run stopped before its first file, e.g.
     * by the pre-run check or a signal). A folder that existed before, or holds anything, is never removed. Safe to
     * call twice and from a signal handler's thread.
     */
    @Override
    public synchronized void close() {
        if (channel == null && !closed && measured) {
            // llmperf's rule, which no line said (QA): a user who forgot the flag learns it before the next run
            notice("nothing was saved: without --results-dir no file is written (llmperf's rule); give "
                    + "--results-dir DIR to keep a run's results");
        }
        if (channel == null || closed) {
            closed = true;
            printHeld(null);
            return;
        }
        printHeld(null); // the files stay where the lines say (an interrupted run, a caller without a verdict)
        closed = true;
        try {
            if (since != null && !settled) {
                boolean wrote = RunFiles.wroteSince(dir, since);
                if (!wrote) RunFiles.removeEmptySince(dir, since); // e.g. a journal opened, then nothing recorded
                // only files this run set aside: one an interrupted run left is not this run's to settle
                if (replaced && Files.isDirectory(dir.resolve(RunFiles.ASIDE))) {
                    if (wrote) RunFiles.deleteAside(dir);
                    else RunFiles.restoreAside(dir); // nothing new: the folder is as it was
                } else if (overwrite && wrote) {
                    RunFiles.removeEarlier(dir, since); // a caller that never said when it started writing
                }
                RunFiles.record(dir, since); // before the lock goes: the next run reads a whole list
            }
        } catch (IOException ignored) {
            // without the list, the next --overwrite replaces only the files of the same names, as it always did
        }
        try {
            Files.deleteIfExists(lockFile); // while still locked: the next run never sees a half-removed file
        } catch (IOException ignored) {
            // a lock file left behind is taken over by the next run
        }
        try {
            lock.release();
        } catch (IOException ignored) {
            // closing the channel releases it too
        }
        closeQuietly(channel);
        removeCreated(dir, created);
    }

    /**
     * The end of a run that was not interrupted, whatever its command (token-benchmark, --llm-api embeddings,
     * correctness, a capacity search): when it recorded requests and every one failed (exit 4; a search and
     * correctness exit 0), {@link #keepEarlierOverFailedRun()}, said in one line on the notices stream.
     *
     * @param records every measured request of the run (all its levels and models; a search's every level)
     * @return the folder this run's files went to, or null when nothing was moved
     */
    public synchronized Path keepEarlierIfEveryRequestFailed(List<RequestRecord> records) {
        if (records.isEmpty() || records.stream().anyMatch(RequestRecord::succeeded)) {
            printHeld(null);
            return null;
        }
        Path failed = keepEarlierOverFailedRun();
        printHeld(failed);
        if (failed != null) {
            notice("the earlier run's files are back in " + dir + " (a rerun whose every request failed replaces "
                    + "nothing); this run's files are in " + failed);
        }
        return failed;
    }

    /**
     * A run whose every request failed (exit 4): its files go into a new {@value #FAILED_PREFIX}{@code <time>} folder
     * and the earlier run's files, set aside by {@code --overwrite}, come back, so a failed rerun loses nothing. A
     * no-op (null) without files set aside (no --overwrite, or an empty folder before).
     *
     * @return the folder this run's files went to, or null when nothing was moved
     * @throws RunFailedException when the files cannot be moved
     */
    public synchronized Path keepEarlierOverFailedRun() {
        if (channel == null || closed || settled || since == null) return null;
        if (!replaced || !Files.isDirectory(dir.resolve(RunFiles.ASIDE))) return null;
        try {
            Path failed = Files.createDirectories(newFolderName(FAILED_PREFIX, since.toInstant()));
            RunFiles.moveSince(dir, since, failed);
            RunFiles.record(failed, since); // a move keeps the times: the failed run's own list, in its folder
            RunFiles.restoreAside(dir);
            settled = true;
            return failed;
        } catch (IOException e) {
            throw new RunFailedException("results folder " + dir + ": the earlier run's files cannot be put back "
                    + "(they are in " + dir.resolve(RunFiles.ASIDE) + "): " + reason(e));
        }
    }

    /**
     * The process quits at once (a signal after the stop, before the results are all written): settles the folder
     * without waiting for the run, as {@link #close()} would. A run that recorded nothing gives the earlier run's
     * files back; one that did keeps its records and lists them, and the earlier run's files stay set aside, whole.
     * The lock file goes. Runs on the signal's thread, just before the process halts.
     *
     * @return what became of the folder, in words for the quit's one line; null without a folder or once closed
     */
    public synchronized String quit() {
        if (channel == null || closed || since == null) return null;
        closed = true;
        String said;
        try {
            boolean aside = replaced && Files.isDirectory(dir.resolve(RunFiles.ASIDE));
            if (!RunFiles.wroteSince(dir, since)) {
                RunFiles.removeEmptySince(dir, since);
                if (aside) RunFiles.restoreAside(dir);
                said = "nothing recorded" + (aside ? "; the earlier run's files are back in " + dir : "");
            } else {
                long records = RunFiles.journalRecords(dir, since);
                RunFiles.record(dir, since); // the next --overwrite then sets exactly these aside
                said = Plural.of(records, "request") + " recorded " + Plural.is(records) + " in "
                        + dir.resolve(RequestJournal.FILE_NAME)
                        + " (files not yet written are missing: llmperf4j report " + dir + " says what reads them)"
                        + (aside ? "; the earlier run it was replacing is kept whole in " + dir.resolve(RunFiles.ASIDE)
                        + " (move its files back into " + dir + " to restore it)" : "");
            }
        } catch (IOException e) {
            said = "results folder " + dir + " left as it was: " + reason(e);
        }
        try {
            Files.deleteIfExists(lockFile); // the OS lock goes with the process
        } catch (IOException ignored) {
            // a lock file left behind is taken over by the next run
        }
        removeCreated(dir, created);
        return said;
    }

    /** A name for a new folder in the results folder, {@code <prefix><time>} (-2, -3... when that one is taken). */
    private Path newFolderName(String prefix, Instant time) {
        String name = prefix + STAMP.format(time.atZone(ZoneId.systemDefault()));
        Path folder = dir.resolve(name);
        for (int i = 2; Files.exists(folder); i++) folder = dir.resolve(name + "-" + i);
        return folder;
    }

    /**
     * Says that {@code names} were written into {@code into} (this folder, or a folder in it) on {@code err}: at once,
     * or, while this run replaces an earlier one (--overwrite, its files set aside), once the run's end settles where
     * they stay ({@link #keepEarlierIfEveryRequestFailed}, {@link #close()}): a run whose every request failed has its
     * files moved into {@value #FAILED_PREFIX}{@code <time>}, and the line names that folder (QA: it named the results
     * folder the files were then moved out of).
     */
    public synchronized void announceWritten(PrintStream err, Path into, String names) {
        Written line = new Written(err, into, names);
        if (channel != null && !closed && !settled && replaced && Files.isDirectory(dir.resolve(RunFiles.ASIDE))) {
            held.add(line);
        } else {
            line.print(into);
        }
    }

    /** Prints the held lines, each naming where its files are now: {@code movedTo} for {@link #dir}, when moved. */
    private void printHeld(Path movedTo) {
        Path from = dir == null ? null : dir.toAbsolutePath().normalize();
        for (Written line : held) {
            Path into = line.into().toAbsolutePath().normalize();
            line.print(movedTo == null || !into.startsWith(from) ? into : movedTo.resolve(from.relativize(into)));
        }
        held.clear();
    }

    private void notice(String line) {
        if (notices != null) notices.println("llmperf4j: " + line);
    }

    /**
     * Removes {@code dir} and its parents up to {@code created}, the outermost one this run created, while each is
     * empty ({@link Files#delete} refuses a folder that is not); stops at the first that holds something.
     */
    private static void removeCreated(Path dir, Path created) {
        if (created == null) return;
        for (Path p = dir.toAbsolutePath(); p != null && p.startsWith(created); p = p.getParent()) {
            try {
                Files.delete(p);
            } catch (IOException e) {
                return; // not empty (or not ours to remove): keep it and everything above
            }
        }
    }

    private void writeHolder() throws IOException {
        String text = "pid " + ProcessHandle.current().pid() + " on " + hostName() + ", since "
                + Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS) + "\n";
        channel.truncate(0);
        channel.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), 0);
        channel.force(false);
    }

    /** Who holds the lock, as its file says ("pid 123 on host, since ..."). */
    private static String holder(Path lockFile) {
        try {
            String text = Files.readString(lockFile, StandardCharsets.UTF_8).strip();
            return text.isEmpty() ? "holder unknown" : text;
        } catch (IOException e) {
            return "holder unknown";
        }
    }

    /** A result-like file at the top of {@code dir} (the first by name), else one folder down; or null. */
    private static Path earlierResult(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir, 2)) {
            return files.filter(Files::isRegularFile).filter(RunFiles::isResult)
                    .filter(f -> !dir.relativize(f).startsWith(RunFiles.ASIDE))
                    // the folder's own run first (a failed-run-* or level folder's files after)
                    .min(Comparator.comparingInt(Path::getNameCount).thenComparing(f -> f))
                    .orElse(null);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            String name = ManagementFactory.getRuntimeMXBean().getName(); // pid@host on HotSpot
            return name.contains("@") ? name.substring(name.indexOf('@') + 1) : "this host";
        }
    }

    /**
     * Why {@code dir} could not be created, in words: the operating system's reason, and for a parent that exists
     * but takes no new folder (e.g. under /proc, which answers "no such file or directory") which parent that is.
     */
    private static String creationReason(Path dir, IOException e) {
        Path parent = null;
        for (Path p = dir.toAbsolutePath().getParent(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p)) {
                parent = p;
                break;
            }
        }
        String why;
        if (e instanceof java.nio.file.AccessDeniedException) {
            why = "permission denied";
        } else if (e instanceof java.nio.file.NoSuchFileException) {
            why = "no such file or directory";
        } else if (e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null) {
            why = fs.getReason().toLowerCase(Locale.ROOT);
        } else {
            why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        }
        return parent == null ? why : "the system refused a new folder in " + parent + " (" + why + ")";
    }

    /** Why a folder or file cannot be written, in words (Java's exception names say little to a user). */
    private static String reason(IOException e) {
        String message = e.getMessage();
        if (e instanceof java.nio.file.AccessDeniedException denied) {
            return "permission denied (" + denied.getFile() + ")";
        }
        if (e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null) {
            return fs.getReason() + (fs.getFile() == null ? "" : " (" + fs.getFile() + ")");
        }
        String kind = e.getClass().getSimpleName();
        return message == null ? kind : kind + ": " + message;
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing more to release
        }
    }
}
