# Shared by the server scripts (source it): loopback probes with bash's /dev/tcp.

# port_open PORT: succeeds when something listens on 127.0.0.1:PORT.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# http_status PORT PATH: prints the status code of GET PATH, or nothing on failure.
http_status() {
	(
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 0
		printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$2" "$1" >&3
		local line=
		IFS= read -r -t 5 line <&3 || true
		line=${line#HTTP/1.? }
		echo "${line%% *}"
	) 2>/dev/null
}
