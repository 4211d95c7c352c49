package h1

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkStream reads a chunked SSE stream of 500 events of ~150 bytes,
// 1 KiB at a time as the runner's SSE reader does, over a kept-alive
// connection.
func BenchmarkStream(b *testing.B) {
	var body strings.Builder
	ev := `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" word"},"finish_reason":null}]}` + "\n\n"
	for range 500 {
		fmt.Fprintf(&body, "%x\r\n%s\r\n", len(ev), ev)
	}
	body.WriteString("0\r\n\r\n")
	resp := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" + body.String()
	for _, d := range dialers {
		b.Run(d.name, func(b *testing.B) {
			srv := startRaw(b, func(c net.Conn, br *bufio.Reader) {
				for {
					if _, ok := readRequest(br); !ok {
						return
					}
					io.WriteString(c, resp)
				}
			})
			tr := &Transport{DialContext: d.dial}
			defer tr.CloseIdleConnections()
			buf := make([]byte, 1024)
			b.SetBytes(int64(len(resp)))
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodGet, srv.url(), nil)
				resp, err := tr.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := resp.Body.Read(buf); err != nil {
						if err != io.EOF {
							b.Fatal(err)
						}
						break
					}
				}
				resp.Body.Close()
			}
			b.ReportMetric(float64(b.N*500)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
