package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/config"
)

// serve logs each load warning, and with debug_config the merged
// configuration with its secrets redacted.
func TestLogConfig(t *testing.T) {
	files := config.Files{Adapter: "../../config/testdata/adapter/compat-keys.yaml", Task: ex + "onprem/task-config.yaml", Broker: ex + "onprem/broker.yaml"}
	for _, debug := range []bool{false, true} {
		cfg, err := config.Load(files, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Adapter.DebugConfig = debug
		var buf bytes.Buffer
		logConfig(cfg, slog.New(slog.NewTextHandler(&buf, nil)))
		out := buf.String()
		if !strings.Contains(out, "path=clients.maestro.client_id") {
			t.Errorf("debug %v: the client_id warning is not logged:\n%s", debug, out)
		}
		if got := strings.Contains(out, "source_id: compat"); got != debug {
			t.Errorf("debug %v: configuration logged = %v:\n%s", debug, got, out)
		}
		if strings.Contains(out, "guest:guest") {
			t.Errorf("debug %v: a secret is logged:\n%s", debug, out)
		}
	}
}
