# Generates the golden files in this folder with pandas 1.5.3 / numpy 1.24 (Debian python3-pandas):
#   /usr/bin/python3 generate_golden.py .
# Never run by the build; the records mirror SampleRuns.java and LlmperfSummaryTest.java.
# Dev-time generator of golden files for bench-report tests (not part of the build).
import json, re, sys, io, contextlib
import pandas as pd

def rec(ok, ttft, last, e2e, events, inp, out, code=None, msg=""):
    content = ttft >= 0
    itl = (last / 1e9) / events if content and last >= 0 and events > 0 else 0.0
    m = {"error_code": None if ok else code, "error_msg": "" if ok else msg,
         "inter_token_latency_s": itl,
         "ttft_s": ttft / 1e9 if content else 0,
         "end_to_end_latency_s": e2e / 1e9 if ok else 0,
         "request_output_throughput_token_per_s": out / (e2e / 1e9) if ok else 0,
         "number_total_tokens": inp + out, "number_output_tokens": out, "number_input_tokens": inp}
    return m

def summarize(metrics, duration):
    ret = {}
    df = pd.DataFrame(metrics)
    ok = df[df["error_code"].isna()] if len(df) else df
    for key in ["inter_token_latency_s", "ttft_s", "end_to_end_latency_s",
                "request_output_throughput_token_per_s", "number_input_tokens", "number_output_tokens"]:
        print(key)
        ret[key] = {}
        series = pd.Series(list(ok[key]) if len(df) else [], dtype=None if len(df) else float).dropna()
        q = series.quantile([0.25, 0.5, 0.75, 0.9, 0.95, 0.99]).to_dict()
        qq = {}
        for k, v in q.items():
            print(f"    p{int(k * 100)} = {v}")
            qq[f"p{int(k * 100)}"] = v
        ret[key]["quantiles"] = qq
        for name, v in [("mean", series.mean()), ("min", series.min()), ("max", series.max()), ("stddev", series.std())]:
            print(f"    {name} = {v}")
            ret[key][name] = v
    ret["num_requests_started"] = len(metrics)
    codes = df["error_code"].dropna() if len(df) else pd.Series([], dtype=float)
    n_err = len(codes)
    ret["error_rate"] = n_err / len(metrics) if len(metrics) else 0
    ret["number_errors"] = n_err
    print(f"Number Of Errored Requests: {n_err}")
    # int keys on purpose (pandas shows 500.0 once a None shares the column)
    freq = {int(k): int(v) for k, v in codes.value_counts().items()}
    if n_err:
        print("Error Code Frequency")
        print(freq)
    ret["error_code_frequency"] = str(freq)
    thr = (ok["number_output_tokens"].sum() if len(df) else 0) / duration
    print(f"Overall Output Throughput: {thr}")
    ret["mean_output_throughput_token_per_s"] = thr
    n_ok = len(ok)
    per_min = n_ok / duration * 60
    print(f"Number Of Completed Requests: {n_ok}")
    print(f"Completed Requests Per Minute: {per_min}")
    ret["num_completed_requests"] = n_ok
    ret["num_completed_requests_per_min"] = per_min
    return ret

def flatten(d, parent="", sep="_"):
    items = []
    for k, v in d.items():
        nk = f"{parent}{sep}{k}" if parent else k
        if isinstance(v, dict):
            items.extend(flatten(v, nk, sep).items())
        else:
            items.append((nk, v))
    return dict(items)

def write(prefix, model, settings, additional, metadata, metrics, duration, timestamp, llm_api="openai", timed_out=False):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        if timed_out:
            print("Test timed out before all requests could be completed.")
        print(f"\\Results for token benchmark for {model} queried with the {llm_api} api.\n")
        res = summarize(metrics, duration)
    summary = {"model": model, **settings, "additional_sampling_params": additional, "results": res}
    base = re.sub(r"-{2,}", "-", re.sub(r"[^\w\d-]+", "-", f"{model}_{settings['mean_input_tokens']}_{settings['mean_output_tokens']}"))
    summary.update(metadata)
    summary["timestamp"] = timestamp
    data = {"version": "2023-08-31", "name": base + "_summary"}
    data.update(summary)
    data = flatten(data)
    out = sys.argv[1]
    with open(f"{out}/{prefix}_summary.json", "w") as f:
        json.dump(data, f, indent=4, default=str)
    with open(f"{out}/{prefix}_individual_responses.json", "w") as f:
        json.dump(metrics, f, indent=4)
    with open(f"{out}/{prefix}_console.txt", "w") as f:
        f.write(buf.getvalue())

settings = {"mean_input_tokens": 550, "stddev_input_tokens": 150, "mean_output_tokens": 150,
            "stddev_output_tokens": 10, "num_concurrent_requests": 3}
mixed = [
    rec(True, 250_000_000, 2_000_000_000, 2_100_000_000, 101, 550, 151),
    rec(True, 300_000_000, 1_800_000_000, 1_900_000_000, 90, 480, 120),
    rec(False, -1, -1, 50_000_000, 0, 610, 1, 500, "Internal Server Error"),
    rec(True, 200_000_000, 2_500_000_000, 2_600_000_000, 130, 601, 131),
    rec(False, 220_000_000, 900_000_000, 950_000_000, 40, 530, 39, -1, "connection reset"),
    rec(False, -1, -1, 70_000_000, 0, 575, 1, 500, "Internal Server Error"),
    rec(True, -1, -1, 500_000_000, 2, 500, 1),
]
additional = {"temperature": 0.7, "top_p": 1, "stop": ["\n\n", "END"], "extra": {"a": {"b": True}, "empty": {}}, "seed": None}
metadata = {"framework": "vllm", "model": "overridden-model", "gpu": "A10G \u00fc"}
write("mixed", "meta-llama/Llama-2-7b-chat-hf", settings, additional, metadata, mixed, 5.5, 1703136129)

# all failed: llmperf itself would crash; this is what pandas gives for the empty success frame
failed = [rec(False, -1, -1, 30_000_000, 0, 550, 1, 503, "Service Unavailable"),
          rec(False, -1, -1, 40_000_000, 0, 560, 1, 503, "Service Unavailable")]
write("allfailed", "gpt-3.5-turbo", settings, {}, {}, failed, 2.0, 1703136129, timed_out=True)

# one success: stddev NaN
one = [rec(True, 123_456_789, 1_234_567_890, 1_300_000_000, 77, 550, 76)]
write("single", "gpt-3.5-turbo", settings, {}, {}, one, 1.3, 1703136129)
