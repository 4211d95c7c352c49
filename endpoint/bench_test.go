package endpoint

import (
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
)

// BenchmarkParse measures one SSE data payload per op; events/s is the rate
// one core sustains.
func BenchmarkParse(b *testing.B) {
	for _, bc := range []struct{ name, endpoint, data string }{
		{"vllm-content", "chat", `{"id":"chatcmpl-9f2c4a5e8b1d4f0e","object":"chat.completion.chunk","created":1732000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}]}`},
		{"sglang-content", "chat", `{"id":"a1b2c3","object":"chat.completion.chunk","created":1732000000,"model":"qwen","choices":[{"index":0,"delta":{"role":null,"content":" word","reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null}`},
		{"usage", "chat", `{"id":"chatcmpl-9f2c","object":"chat.completion.chunk","created":1732000000,"model":"m","choices":[],"usage":{"prompt_tokens":550,"total_tokens":1550,"completion_tokens":1000,"prompt_tokens_details":{"cached_tokens":0}}}`},
		{"done", "chat", `[DONE]`},
		{"tgi-token", "huggingface_generate", `{"index":12,"token":{"id":1917,"text":" word","logprob":-0.25,"special":false},"generated_text":null,"details":null}`},
		{"responses-delta", "responses", `{"type":"response.output_text.delta","sequence_number":14,"item_id":"msg_68af2b3c9e1c8190a5c3d1e2f4b6a7c8","output_index":0,"content_index":0,"delta":" word","logprobs":[]}`},
		{"messages-delta", "messages", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" word"}}`},
		{"image-partial", "image_generation", `{"type":"image_generation.partial_image","b64_json":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==","partial_image_index":0,"created_at":1732000000,"size":"1024x1024","quality":"low","output_format":"png","background":"opaque"}`},
		{"image-partial-64k", "image_generation", `{"type":"image_generation.partial_image","b64_json":"` + strings.Repeat("iVBORw0K", 8<<10) + `","partial_image_index":1,"created_at":1732000000,"size":"1024x1024","quality":"low","output_format":"png","background":"opaque"}`},
		{"video-status", "video_generation", `{"id":"video_1_2_3_0","object":"video","status":"completed","progress":100,"completed_at":1732000004,"inference_time_s":3.25,"peak_memory_mb":20480.5,"created_at":1732000000,"size":"1280x720","seconds":"4"}`},
		{"triton-generate-event", "generate", `{"model_name":"ensemble","model_version":"1","text_output":" word"}`},
		{"kserve-infer-body", "kserve", `{"model_name":"ensemble","model_version":"1","outputs":[{"name":"text_output","datatype":"BYTES","shape":[1],"data":[" word"]}]}`},
		{"completions", "completions", `{"id":"cmpl-1","object":"text_completion","created":1732000000,"model":"m","choices":[{"index":0,"text":" world","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := mustLookup(b, bc.endpoint)
			data := []byte(bc.data)
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, _, err := e.Parse(data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkPayloadShort measures the fixed cost of a single-turn chat body,
// which the long-prompt BenchmarkPayload hides behind string escaping.
func BenchmarkPayloadShort(b *testing.B) {
	e := mustLookup(b, "chat")
	turn := &dataset.Turn{Texts: []string{"Hello there"}, Model: "m", MaxTokens: 100}
	opts := &Options{Streaming: true, Extra: []Field{field("ignore_eos", "true")}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Payload(turn, opts); err != nil {
			b.Fatal(err)
		}
	}
}
