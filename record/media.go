package record

// Video is what a video_generation job object (POST /v1/videos, GET
// /v1/videos/{id}) says of the job. A nil pointer field was absent.
type Video struct {
	// ID is the job id ("" when absent).
	ID string
	// Status is queued, in_progress, completed or failed ("" when absent).
	Status string
	// InferenceTimeS is the server's inference_time_s (SGLang), seconds.
	InferenceTimeS *float64
	// PeakMemoryMB is the server's peak_memory_mb (SGLang), megabytes.
	PeakMemoryMB *float64
	// Error is the message of a failed job's error object ("" when none).
	Error string
}
