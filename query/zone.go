package query

import (
	"bufio"
	"encoding/json"
	"os"
	"time"
)

// maxZoneOffset bounds the offsets of real time zones (UTC-12 to UTC+14).
const maxZoneOffset = 14 * time.Hour

// zoneOffset finds the offset of the zone a naive local time was written in
// by comparing it with wallNS, a wall-clock time (ns since the epoch) of
// about the same instant, such as the first request's request_start_ns.
// Offsets are rounded to 15 minutes, the finest any zone uses, so the two
// may be minutes apart; ok is false without wallNS or when the difference
// is no zone's offset.
func zoneOffset(naive time.Time, wallNS int64) (off time.Duration, ok bool) {
	return zoneOffsetWithin(naive, wallNS, 15*time.Minute)
}

// zoneOffsetWithin is zoneOffset for a reference that must be within tol
// of naive's instant (after the offset), else ok is false.
func zoneOffsetWithin(naive time.Time, wallNS int64, tol time.Duration) (off time.Duration, ok bool) {
	if naive.IsZero() || wallNS <= 0 {
		return 0, false
	}
	diff := naive.Sub(time.Unix(0, wallNS).UTC())
	off = diff.Round(15 * time.Minute)
	if off < -maxZoneOffset || off > maxZoneOffset || (diff-off).Abs() > tol {
		return 0, false
	}
	return off, true
}

// writtenWithin is how soon after its end_time a summary file's
// modification time must be for it to tell the zone: AIPerf writes the
// file seconds after the run ends, and a copy that did not keep the time
// is most likely later than that.
const writtenWithin = time.Minute

// localTimes converts a summary's naive start and end (its writer's local
// wall clock) to UTC: with the zone the wall-clock time wallNS (the first
// request's start) reveals when it can (zoneOffset), else with the zone
// the summary file's modification time writtenNS reveals when it is within
// writtenWithin of the end, else with this process's local zone, the zone
// of a run written on the machine that reads it. Times with a zone are
// returned as they are.
func localTimes(s *summary, wallNS, writtenNS int64) (start, end time.Time) {
	if !s.NaiveTimes {
		return s.Start, s.End
	}
	off, ok := zoneOffset(s.Start, wallNS)
	if !ok && wallNS <= 0 {
		off, ok = zoneOffsetWithin(s.End, writtenNS, writtenWithin)
	}
	convert := func(t time.Time) time.Time {
		if t.IsZero() {
			return t
		}
		if ok {
			return t.Add(-off)
		}
		return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.Local).UTC()
	}
	return convert(s.Start), convert(s.End)
}

// firstRequestWallNS returns the wall-clock start (ns since the epoch) of
// the first record of an AIPerf profile_export.jsonl: request_start_ns, or
// timestamp_ns in AIPerf before 0.8. It is 0 when the file or the field is
// missing.
func firstRequestWallNS(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for i := 0; i < 16 && sc.Scan(); i++ {
		var rec struct {
			Metadata struct {
				RequestStartNS *int64 `json:"request_start_ns"`
				TimestampNS    *int64 `json:"timestamp_ns"`
			} `json:"metadata"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		switch md := rec.Metadata; {
		case md.RequestStartNS != nil && *md.RequestStartNS > 0:
			return *md.RequestStartNS
		case md.TimestampNS != nil && *md.TimestampNS > 0:
			return *md.TimestampNS
		}
	}
	return 0
}
