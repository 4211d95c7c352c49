//go:build !unix

package runner

// processUsage returns zero usage: CPU time and peak memory are read with
// getrusage, which this system lacks.
func processUsage() usage { return usage{} }
