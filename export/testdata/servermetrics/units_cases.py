"""Expected units from AIPerf 0.13's own infer_unit (server_metrics/units.py)
for metric names and HELP texts of vLLM, SGLang, TGI, llama.cpp, DCGM and Go
exporters; writes units_cases.json for TestServerMetricUnitMatchesAIPerf.

  ~/.cache/aiperf-go/aiperf-venv/bin/python units_cases.py
"""

import json
import os

from aiperf.server_metrics.units import infer_unit

CASES = [
    ("vllm:num_requests_running", "Number of requests in model execution batches."),
    ("vllm:num_requests_waiting", "Number of requests waiting to be processed."),
    ("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage."),
    ("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage."),
    ("vllm:prompt_tokens", "Number of prefill tokens processed."),
    ("vllm:generation_tokens", "Number of generation tokens processed."),
    ("vllm:request_success", "Count of successfully processed requests."),
    ("vllm:num_preemptions", "Cumulative number of preemption from the engine."),
    ("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds."),
    ("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds."),
    ("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds."),
    ("vllm:request_prompt_tokens", "Number of prefill tokens processed."),
    ("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter."),
    ("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens."),
    ("vllm:cache_config_info", "Information of the LLMEngine CacheConfig"),
    ("sglang:token_usage", "The token usage"),
    ("sglang:cache_hit_rate", "The prefix cache hit rate (0-1)"),
    ("sglang:gen_throughput", "The generation throughput (token/s)."),
    ("sglang:num_queue_reqs", "The number of requests in the waiting queue"),
    ("tgi_request_duration", "Request duration"),
    ("tgi_batch_current_size", ""),
    ("llamacpp:prompt_tokens_seconds", "Average prompt throughput in tokens/s."),
    ("llamacpp:tokens_predicted", "Number of generation tokens processed."),
    ("llamacpp:kv_cache_usage_ratio", "KV-cache usage. 1 means 100 percent usage."),
    ("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB)."),
    ("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W)."),
    ("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C)."),
    ("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz)."),
    ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "Total energy consumption since boot (in mJ)."),
    ("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %)."),
    ("node_network_receive_bytes", "Network device statistic receive_bytes."),
    ("node_memory_MemAvailable_bytes", "Memory information field MemAvailable_bytes."),
    ("process_cpu_seconds", "Total user and system CPU time spent in seconds."),
    ("go_gc_duration_seconds", "A summary of the pause duration of garbage collection cycles."),
    ("http_request_duration_ms", "HTTP latency"),
    ("queue_latency_ns", "Queue latency"),
    ("thing_ratio", "Share (0-100)"),
    ("thing_percent", "A ratio, range 0 to 1"),
    ("bandwidth_gb_s", "Bandwidth"),
    ("errors_total", "Errors."),
    ("custom_metric", "Latency in milliseconds."),
    ("custom_metric2", "Rate (tokens/sec)"),
    ("custom_metric3", "Rate in requests/s"),
    ("custom_metric4", "Sizes in bytes"),
    ("custom_metric5", "Count in tokens"),
    ("custom_blocks", "KV blocks"),
    ("custom_block_count", "KV blocks"),
    ("custom_reqs", ""),
    ("custom_thing", "Unknown (in Zorks)"),
    ("custom_thing_celsius", ""),
    ("custom_thing_joules", ""),
    ("custom_thing_watts", ""),
    ("Mixed_Case_SECONDS", ""),
    ("plain", ""),
]

here = os.path.dirname(os.path.abspath(__file__))
out = []
for name, desc in CASES:
    u = infer_unit(name, desc)
    out.append({"name": name, "description": desc, "unit": u.display_name() if u else ""})
with open(os.path.join(here, "units_cases.json"), "w") as f:
    json.dump(out, f, indent=1)
print(len(out), "cases")
