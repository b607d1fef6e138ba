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
     */
    public record Result(String name, boolean passed, String detail, String fix) {
        static Result pass(String name, String detail) {
            return new Result(name, true, detail, "");
        }

        static Result fail(String name, String detail, String fix) {
            return new Result(name, false, detail, fix);
        }

        public String render() {
            String line = (passed ? "[PASS] " : "[FAIL] ") + name + ": " + detail;
            return fix.isEmpty() ? line : line + System.lineSeparator() + "       fix: " + fix;
        }
    }
}
