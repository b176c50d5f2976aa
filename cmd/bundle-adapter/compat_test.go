package main

import (
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/config"
)

// validate shows the ManifestWork fields Maestro drops, which every event
// used to fail on at render.
func TestValidateWarnsAboutDroppedFields(t *testing.T) {
	code, out, errOut := runCLI(t, "validate", "--config", ex+"onprem/adapter-config.yaml",
		"--task-config", "../../adapter/testdata/dropped/task.yaml")
	if code != 0 || !strings.Contains(out, "valid:") ||
		!strings.Contains(errOut, "warning: ../../adapter/testdata/dropped/task.yaml:9: resources[0].manifest: ") ||
		!strings.Contains(errOut, "field spec.deleteOption.gracePeriodSeconds is not part of a ManifestWork") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// HyperFleet's auth.type: none is plaintext gRPC, as an empty auth.type is.
func TestMaestroAuthNoneIsPlaintext(t *testing.T) {
	for _, typ := range []string{"", "none"} {
		c := config.MaestroConfig{GRPCServerAddress: "m:8090", HTTPServerAddress: "http://m:8000", Insecure: true, Auth: config.MaestroAuth{Type: typ}}
		if o := maestroOptions(c, slog.New(slog.DiscardHandler)); !o.GRPC.Insecure || !o.HTTP.Insecure {
			t.Errorf("auth.type %q: gRPC %+v REST %+v, want both plaintext", typ, o.GRPC, o.HTTP)
		}
	}
}

// HyperFleet's Maestro shape (testdata/hyperfleet-shape) through validate
// and a chain of dry-runs: create, unchanged, then delete.
func TestHyperFleetShapeValidateAndDryRunChain(t *testing.T) {
	const d = "testdata/hyperfleet-shape/"
	base := []string{"--config", ex + "onprem/adapter-config.yaml", "--task-config", d + "task-config.yaml"}
	if code, out, errOut := runCLI(t, append([]string{"validate"}, base...)...); code != 0 || !strings.Contains(out, "valid:") {
		t.Fatalf("validate: exit %d\n%s%s", code, out, errOut)
	}
	state := filepath.Join(t.TempDir(), "state.json")
	step := func(event string, in bool) report {
		t.Helper()
		args := append([]string{"dry-run"}, base...)
		args = append(args, "--event", d+event, "--now", "2026-11-30T10:00:00Z", "--output", "json", "--maestro-state-out", state)
		if in {
			args = append(args, "--maestro-state", state)
		}
		code, out, errOut := runCLI(t, args...)
		var r report
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.ExecutionStatus != "success" {
			t.Fatalf("%s: exit %d\n%s\n%s", event, code, out, errOut)
		}
		return r
	}
	ops := func(r report) string {
		var s []string
		for _, b := range r.Bundles {
			s = append(s, b.Name+":"+b.Operation+"/"+b.State)
		}
		return strings.Join(s, " ")
	}
	if got, want := ops(step("event.json", false)), "mw:create/done gated:skip/done job:create/done"; got != want {
		t.Errorf("first event: %s, want %s", got, want)
	}
	if got, want := ops(step("event.json", true)), "mw:unchanged/done gated:skip/done job:unchanged/done"; got != want {
		t.Errorf("same event again: %s, want %s", got, want)
	}
	r := step("event-delete.json", true)
	if got := ops(r); !strings.HasPrefix(got, "mw:delete/") || !strings.Contains(got, "job:recreate/") {
		t.Errorf("delete event: %s, want mw deleted and job (generation changed) recreated", got)
	}
}
