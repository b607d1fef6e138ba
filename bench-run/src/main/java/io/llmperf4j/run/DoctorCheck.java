package io.llmperf4j.run;

/** One doctor check's outcome. */
public final class DoctorCheck {
    private DoctorCheck() {
    }

    /**
     * @param name    short name of what was checked
     * @param passed  whether it passed
     * @param detail  what was seen
     * @param fix     what to do about a failure (empty when passed)
     * @param info    an optional feature's state: it never fails the doctor (printed as [INFO])
     * @param warning something a run works without, but with a consequence the note states: it never fails the
     *                doctor (printed as [WARN])
     */
    public record Result(String name, boolean passed, String detail, String fix, boolean info, boolean warning) {
        public Result(String name, boolean passed, String detail, String fix) {
            this(name, passed, detail, fix, false, false);
        }

        public Result(String name, boolean passed, String detail, String fix, boolean info) {
            this(name, passed, detail, fix, info, false);
        }

        static Result pass(String name, String detail) {
            return new Result(name, true, detail, "");
        }

        static Result fail(String name, String detail, String fix) {
            return new Result(name, false, detail, fix);
        }

        /** What an optional feature found, e.g. that the server serves no metrics: passes, with a hint. */
        static Result info(String name, String detail, String hint) {
            return new Result(name, true, detail, hint, true, false);
        }

        /** What a run works without, e.g. usage in the stream: passes, with its consequence. */
        static Result warn(String name, String detail, String consequence) {
            return new Result(name, true, detail, consequence, false, true);
        }

        public String render() {
            String line = (info ? "[INFO] " : warning ? "[WARN] " : passed ? "[PASS] " : "[FAIL] ") + name + ": "
                    + detail;
            return fix.isEmpty() ? line : line + System.lineSeparator()
                    + (info || warning ? "       note: " : "       fix: ") + fix;
        }
    }
}
