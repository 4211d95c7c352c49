package trace

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// AnalyzeFile analyses the trace at path; errors name the file (and the
// line and field of a malformed row).
func AnalyzeFile(path string, blockSize int) (*Analysis, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	a, err := Analyze(file, blockSize)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// WriteJSONFile writes the analysis as JSON to path, creating its parent
// directories.
func (a *Analysis) WriteJSONFile(path string) error {
	var b bytes.Buffer
	if err := a.WriteJSON(&b); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
