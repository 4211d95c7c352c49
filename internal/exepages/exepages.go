// Package exepages keeps the running executable's image mapped in base
// pages, so that only the code and data a process touches count in its
// resident memory.
//
// Linux 6.x keeps a freshly written or read file's page cache in large
// folios (up to 2 MiB), and maps a large folio of a file mapping with one
// PMD entry when the mapping allows huge pages: touching one byte of the
// executable then makes the whole 2 MiB around it resident. A Go binary
// carrying the cloud SDKs is ~60 MB, and a benchmark run touches code
// spread over most of it, so ~56 MB of a run's peak RSS was the image
// (BENCHMARKS.md, issue 19) where ~15 MB of it is ever used. The page
// cache is shared and reclaimable either way; what changes is the RSS a
// user, a container limit or a scheduler reads.
package exepages

// MapSmall marks the executable's read-only mappings (code and read-only
// data, never the writable data) as not for huge pages and drops their
// present mappings, so that later accesses map base pages (with the
// kernel's usual fault-around). Pages refault from the page cache on use;
// nothing is copied or lost. It is for long-running commands: a run pays
// a few hundred minor faults once. It returns how many bytes of mappings
// it marked, and an error only when the mappings could not be read; it
// does nothing (0, nil) where the system has no such mappings (other
// operating systems).
func MapSmall() (int64, error) { return mapSmall() }
