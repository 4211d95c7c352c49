# Shared by the server scripts (source it): stopping a server process.

# stop_pid PID LABEL: sends TERM to PID, waits up to 5 s, then KILL. Uses the
# caller's log function to say what it did, naming the process LABEL.
stop_pid() {
	local pid=$1 label=$2
	kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		log "$label ignored TERM; sending KILL"
		kill -KILL "$pid" 2>/dev/null || true
		sleep 0.2
	fi
	log "stopped $label"
}
