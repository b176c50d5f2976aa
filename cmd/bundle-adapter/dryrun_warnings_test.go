package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// dry-run prints the warnings serve would log for the event, in text and
// JSON: here a payload leaf sent as null (the cluster has no name, so the
// status's data.cluster_name template reaches a missing value).
func TestDryRunPrintsTheEventsWarnings(t *testing.T) {
	t.Setenv("NAMESPACE", "hyperfleet")
	dir := filepath.Join("testdata", "hyperfleet-shapes", "adapter1")
	args := []string{"dry-run", "-c", filepath.Join(dir, "adapter-config.yaml"), "-t", filepath.Join(dir, "task-config.yaml"),
		"--event", filepath.Join(dir, "event.json"), "--api-responses", filepath.Join(dir, "api-responses-no-name.json"),
		"--now", "2026-11-30T10:00:00Z"}
	want := "payload leaf without a default failed; sent as null"
	code, out, errOut := runCLI(t, append(args, "--output", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(r.Warnings, "\n"), want) || !strings.Contains(strings.Join(r.Warnings, "\n"), "cluster_name") {
		t.Errorf("JSON warnings %q lack %q naming cluster_name", r.Warnings, want)
	}
	code, out, errOut = runCLI(t, append(args, "--output", "text")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "warnings:") || !strings.Contains(out, want) {
		t.Errorf("text output lacks the warnings section:\n%s", out)
	}
}
