package io.llmperf4j.model;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The ids of a failed session's rest: the turns a session did not send after one failed are sent as a session of
 * their own, without history, named {@code <session>~t<turn>} (its first turn's place in the workload's session).
 * The runner that names them and the summary that counts them back into their session read this one format.
 */
public final class SessionRestIds {
    private static final String MARK = "~t";
    private static final Pattern REST = Pattern.compile(Pattern.quote(MARK) + "(\\d+)$");

    private SessionRestIds() {
    }

    /** The id of the rest from turn {@code from} of the workload's session {@code session}. */
    public static String rest(String session, int from) {
        return session + MARK + from;
    }

    /** The workload's session a request's session id names: {@code s0} for {@code s0} and its rest {@code s0~t2}. */
    public static String workloadSession(String id) {
        Matcher m = REST.matcher(id);
        return m.find() ? id.substring(0, m.start()) : id;
    }

    /** The turn a rest begins at in the workload's session ({@code 2} for {@code s0~t2}); 0 for a session's own id. */
    public static int firstTurn(String id) {
        Matcher m = REST.matcher(id);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }
}
