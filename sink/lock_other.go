//go:build !unix

package sink

import "os"

// lockShared does nothing where flock is missing.
func lockShared(*os.File) error { return nil }

// tryLockExclusive cannot tell a live process from a dead one where flock
// is missing, so it always answers "live": Recover then leaves every spool
// alone rather than upload a running run's files.
func tryLockExclusive(*os.File) (bool, error) { return false, nil }
