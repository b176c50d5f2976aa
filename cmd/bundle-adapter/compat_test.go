package main

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/internal/secret"
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
		c := config.MaestroConfig{GRPCServerAddress: secret.NewURL("m:8090"), HTTPServerAddress: secret.NewURL("http://m:8000"), Insecure: true, Auth: config.MaestroAuth{Type: typ}}
		if o := maestroOptions(c, slog.New(slog.DiscardHandler)); !o.GRPC.Insecure || !o.HTTP.Insecure {
			t.Errorf("auth.type %q: gRPC %+v REST %+v, want both plaintext", typ, o.GRPC, o.HTTP)
		}
	}
}
