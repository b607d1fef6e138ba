package io.llmperf4j.run;

/**
 * A {@link RunRequest} (or a file or value it names) that cannot run, found before anything is sent: the message
 * names the option and the rule, in the command line's words. The CLI prints it as one line and exits 2.
 */
public class InvalidRequestException extends RuntimeException {
    public InvalidRequestException(String message) {
        super(message);
    }
}
