package media

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// ffmpegWaitDelay bounds how long a cancelled ffmpeg may hold its pipes open
// after it is killed.
const ffmpegWaitDelay = 5 * time.Second

// maxStderr is how much of ffmpeg's stderr an error quotes (its tail).
const maxStderr = 2048

// lookFFmpeg resolves the ffmpeg executable: name (a path, or a name looked
// up on PATH), or "ffmpeg" when name is "". The error wraps ErrNoFFmpeg.
func lookFFmpeg(name string) (string, error) {
	if name == "" {
		name = "ffmpeg"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoFFmpeg, err)
	}
	return path, nil
}

// runFFmpeg runs ffmpeg with args after a quiet prefix, feeding it stdin
// and returning what it wrote to stdout. It blocks until ffmpeg exits;
// cancelling ctx kills it. stdin is read by a goroutine that exec owns and
// that has finished when runFFmpeg returns. The error quotes the tail of
// ffmpeg's stderr.
func runFFmpeg(ctx context.Context, ffmpeg string, args []string, stdin io.Reader) ([]byte, error) {
	args = append([]string{"-hide_banner", "-nostats", "-loglevel", "error"}, args...)
	cmd := exec.CommandContext(ctx, ffmpeg, args...)
	cmd.WaitDelay = ffmpegWaitDelay
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("ffmpeg: %w", ctx.Err())
		}
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > maxStderr {
			msg = "…" + msg[len(msg)-maxStderr:]
		}
		if msg == "" {
			return nil, fmt.Errorf("ffmpeg: %w", err)
		}
		return nil, fmt.Errorf("ffmpeg: %w: %s", err, msg)
	}
	return stdout.Bytes(), nil
}
