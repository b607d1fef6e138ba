package io.llmperf4j.tokenize.llama;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Build step (exec-maven-plugin, {@code process-classes}): fetches npm {@code llama-tokenizer-js@1.2.2} and writes the
 * equivalent HuggingFace {@code tokenizer.json} into the classes folder.
 *
 * <p>Usage: {@code LlamaTokenizerJsConverter NPM_DIR OUTPUT_TOKENIZER_JSON}. It never fails the build: when npm is
 * missing or anything else goes wrong it prints one WARNING and writes nothing, and the runtime then reports
 * {@link BuiltInLlama2#UNAVAILABLE_MESSAGE}. It must not call {@code System.exit}: exec:java runs inside Maven's JVM.
 */
public final class LlamaTokenizerJsConverter {

    private LlamaTokenizerJsConverter() {
    }

    public static void main(String[] args) {
        if (args.length != 2) {
            System.out.println("[WARNING] usage: LlamaTokenizerJsConverter NPM_DIR OUTPUT_TOKENIZER_JSON; "
                    + BuiltInLlama2.UNAVAILABLE_MESSAGE);
            return;
        }
        try {
            Path tarball = NpmPack.fetch(BuiltInLlama2.NPM_PACKAGE_SPEC, BuiltInLlama2.TARBALL_FILE_NAME, Path.of(args[0]));
            convert(tarball, Path.of(args[1]));
        } catch (IOException | RuntimeException e) {
            System.out.println("[WARNING] " + BuiltInLlama2.UNAVAILABLE_MESSAGE + " Cause: " + e.getMessage());
        }
    }

    /** Checks the tarball against the registry digest, then writes {@code tokenizer.json} atomically. */
    public static void convert(Path tarball, Path output) throws IOException {
        byte[] tgz = Files.readAllBytes(tarball);
        String digest = sha512Base64(tgz);
        if (!digest.equals(BuiltInLlama2.TARBALL_SHA512_BASE64)) {
            throw new IOException(tarball + " has sha512 " + digest + ", expected the registry's "
                    + BuiltInLlama2.TARBALL_SHA512_BASE64 + "; delete it and rebuild");
        }
        LlamaTokenizerJsData data;
        try (InputStream in = new java.io.ByteArrayInputStream(tgz)) {
            data = LlamaTokenizerJsData.fromTarball(in);
        }
        byte[] json = HfTokenizerJson.toBytes(HfTokenizerJson.build(data));

        Path dir = output.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path temp = Files.createTempFile(dir, "tokenizer", ".json.tmp");
        try {
            Files.write(temp, json);
            Files.move(temp, output, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private static String sha512Base64(byte[] bytes) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-512").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks SHA-512", e);
        }
    }
}
