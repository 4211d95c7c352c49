package main

import (
	"strings"
	"testing"

	"github.com/peterbourgon/ff/v4"
)

func TestMockSigV4Flags(t *testing.T) {
	tests := []struct {
		name          string
		args          []string
		envKey, envSK string
		wantKey       string // "" for no verification
		wantErr       string
	}{
		{name: "off", args: nil},
		{name: "flags", args: []string{"--sigv4-verify", "--aws-access-key-id", "AKID", "--aws-secret-access-key", "sk"}, wantKey: "AKID"},
		{name: "env", args: []string{"--sigv4-verify"}, envKey: "AKENV", envSK: "sk", wantKey: "AKENV"},
		{name: "flag beats env", args: []string{"--sigv4-verify", "--aws-access-key-id", "AKID"}, envKey: "AKENV", envSK: "sk", wantKey: "AKID"},
		{name: "no secret", args: []string{"--sigv4-verify", "--aws-access-key-id", "AKID"}, wantErr: "--aws-secret-access-key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("AWS_ACCESS_KEY_ID", tt.envKey)
			t.Setenv("AWS_SECRET_ACCESS_KEY", tt.envSK)
			var m mockSigV4
			fs := ff.NewFlagSet("mock-server")
			m.register(fs)
			if err := ff.Parse(fs, tt.args); err != nil {
				t.Fatal(err)
			}
			c, err := m.credentials()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ""; c != nil {
				got = c.AccessKeyID
				if got != tt.wantKey || c.SecretAccessKey == "" || strings.Contains(c.String(), c.SecretAccessKey) {
					t.Fatalf("credentials %v, want key %q", c, tt.wantKey)
				}
			} else if tt.wantKey != "" {
				t.Fatalf("no verification, want key %q", tt.wantKey)
			}
		})
	}
}
