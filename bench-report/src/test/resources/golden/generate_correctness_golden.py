# Generates the correctness golden files in this folder with plain python3 (no packages):
#   python3 generate_correctness_golden.py .
# Never run by the build. The records mirror CorrectnessReportTest.java; the checking, printing and summary code
# below is llmperf's llm_correctness.py (HEAD f1d6bed) with Ray, tqdm and the 2 s sleep taken out.
import contextlib, io, json, re, sys

TIMESTAMP = 1700000000
MODEL = "meta-llama/Llama-2-7b-chat-hf"
LLM_API = "openai"
NUM_CONCURRENT = 2
ADDITIONAL = {"top_p": 0.9, "logit_bias": {"50256": -100}}
USER_METADATA = {"framework": "sim"}


def prompt_of(words):
    return f"Convert the following sequence of words into a number: {words}.\nPrint the number first."


def actor_metrics(ok, ttft, last, e2e, events, code=None, msg=""):
    # the openai actor's dict: ITL = sum of gaps (= last content - start), tokens = SSE events, prompt_len 0
    content = ttft >= 0
    return {"error_code": None if ok else code, "error_msg": "" if ok else msg,
            "inter_token_latency_s": last / 1e9 if content else 0,
            "ttft_s": ttft / 1e9 if content else 0,
            "end_to_end_latency_s": e2e / 1e9 if ok else 0,
            "request_output_throughput_token_per_s": events / (e2e / 1e9) if ok else 0,
            "number_total_tokens": events + 0, "number_output_tokens": events, "number_input_tokens": 0}


# (number, words, generated text, actor metrics) in completion order
REQUESTS = [
    (1234, "one thousand, two hundred and thirty-four", "The number is 1,234.",
     actor_metrics(True, 5_000_000, 20_000_000, 25_000_000, 4)),
    (431, "four hundred and thirty-one", "I think\nit is 4,13",
     actor_metrics(True, 7_000_000, 30_000_000, 31_000_000, 6)),
    (10000, "ten thousand", "",
     actor_metrics(False, -1, -1, 2_000_000, 0, 500, "Internal Server Error")),
    (0, "zero", "The num",
     actor_metrics(False, 4_000_000, 9_000_000, 9_500_000, 3, -1, "connection closed by peer")),
    (7, "seven", "7",
     actor_metrics(True, 3_000_000, 3_000_000, 4_000_000, 3)),
]


def flatten_dict(d, parent_key="", sep="_"):
    items = []
    for k, v in d.items():
        new_key = f"{parent_key}{sep}{k}" if parent_key else k
        if isinstance(v, dict):
            items.extend(flatten_dict(v, new_key, sep=sep).items())
        else:
            items.append((new_key, v))
    return dict(items)


def main(out_dir):
    sampling_params = {"temperature": 0.0}
    sampling_params.update(ADDITIONAL)
    completed_requests = []
    for n, words, text, metrics in REQUESTS:
        config = {"model": MODEL, "prompt": (prompt_of(words), 0), "sampling_params": sampling_params,
                  "llm_api": LLM_API, "metadata": {"rnd_number": n}}
        completed_requests.append((metrics, text, config))

    console = io.StringIO()
    with contextlib.redirect_stdout(console):
        num_errored_requests = 0
        num_mismatched_requests = 0
        num_completed_requests = len(completed_requests)
        raw_results = []
        print("Mismatched and errored requests.")
        for out in completed_requests:
            metrics, generated_text, completed_request_config = out
            raw_results.append({"metrics": metrics, "generated_text": generated_text,
                                "request_config": dict(completed_request_config)})
            if not metrics["error_code"]:
                try:
                    commas_between_numbers_re = r"(\d+),(?=\d)"
                    gen_text_commas_removed = re.sub(commas_between_numbers_re, r"\1", generated_text)
                    nums = re.findall(r"\d+", gen_text_commas_removed)
                    generated_text = gen_text_commas_removed.replace("\n", " ")
                    assert str(completed_request_config["metadata"]["rnd_number"]) in nums
                except:
                    num_mismatched_requests += 1
                    print(f"    mismatched request: {generated_text}, expected: "
                          f"{completed_request_config['metadata']['rnd_number']}")
            else:
                num_errored_requests += 1
                print(f"    The request errored: {metrics['error_code']}, {metrics['error_msg']} ")
        print()
        error_rate = num_errored_requests / num_completed_requests
        mismatch_rate = num_mismatched_requests / num_completed_requests
        num_non_errored_requests = num_completed_requests - num_errored_requests
        summary_metrics = {}
        summary_metrics["number_errors"] = num_errored_requests
        summary_metrics["num_mismatched_requests"] = num_mismatched_requests
        summary_metrics["error_rate"] = error_rate
        summary_metrics["mismatch_rate"] = mismatch_rate
        summary_metrics["num_completed_requests"] = num_completed_requests
        summary_metrics["num_non_errored_requests"] = num_non_errored_requests
        summary_metrics["model"] = MODEL
        summary_metrics["num_concurrent_requests"] = NUM_CONCURRENT
        summary_metrics["additional_sampling_params"] = ADDITIONAL
        summary_metrics["llm_api"] = LLM_API
        print(f"Results for llm correctness test for {MODEL} queried with the {LLM_API} api.")
        print(f"Errors: {summary_metrics['number_errors']}, Error rate: {summary_metrics['error_rate']}")
        print(f"Mismatched: {summary_metrics['num_mismatched_requests']}, "
              f"Mismatch rate: {summary_metrics['mismatch_rate']}")
        print(f"Completed: {summary_metrics['num_completed_requests']}")
        print(f"Completed without errors: {summary_metrics['num_non_errored_requests']}")

    file_name = f"{MODEL}_correctness"
    file_name = re.sub(r"[^\w\d-]+", "-", file_name)
    file_name = re.sub(r"-{2,}", "-", file_name)
    summary_metrics.update(USER_METADATA)
    summary_metrics["timestamp"] = TIMESTAMP
    data = {"version": "2023-08-31", "name": f"{file_name}_summary"}
    data.update(summary_metrics)
    with open(f"{out_dir}/correctness_summary.json", "w") as f:
        json.dump(flatten_dict(data), f, indent=4)
    with open(f"{out_dir}/correctness_individual_responses.json", "w") as f:
        json.dump(raw_results, f, indent=4)
    with open(f"{out_dir}/correctness_console.txt", "w") as f:
        f.write(console.getvalue())
    print(file_name)


if __name__ == "__main__":
    main(sys.argv[1])
