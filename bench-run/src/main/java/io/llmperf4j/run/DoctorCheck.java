package io.llmperf4j.run;

/** One doctor check's outcome. */
public final class DoctorCheck {
    private DoctorCheck() {
    }

    /**
     * @param name   short name of what was checked
     * @param passed whether it passed
     * @param detail what was seen
     * @param fix    what to do about a failure (empty when passed)
     * @param info   an optional feature's state: it never fails the doctor (printed as [INFO])
     */
    public record Result(String name, boolean passed, String detail, String fix, boolean info) {
        public Result(String name, boolean passed, String detail, String fix) {
            this(name, passed, detail, fix, false);
        }

        static Result pass(String name, String detail) {
            return new Result(name, true, detail, "");
        }

        static Result fail(String name, String detail, String fix) {
            return new Result(name, false, detail, fix);
        }

        /** What an optional feature found, e.g. that the server serves no metrics: passes, with a hint. */
        static Result info(String name, String detail, String hint) {
            return new Result(name, true, detail, hint, true);
        }

        public String render() {
            String line = (info ? "[INFO] " : passed ? "[PASS] " : "[FAIL] ") + name + ": " + detail;
            return fix.isEmpty() ? line : line + System.lineSeparator() + (info ? "       note: " : "       fix: ") + fix;
        }
    }
}
