package config

import (
	"os"
	"path/filepath"
	"testing"
)

// The bundle view is on for a config that does not name it (HyperFleet's
// configs have no such key: issue 47), and a config or the environment
// that turns it off keeps it off, as before the default changed.
func TestViewOnByDefault(t *testing.T) {
	base, err := os.ReadFile("testdata/hyperfleet/compat/maestro-auth-none.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, extra string
		env         map[string]string
		want        bool
	}{
		{name: "a HyperFleet config as it is", want: true},
		{name: "enabled: false", extra: "    view: {enabled: false}\n", want: false},
		{name: "max_age only", extra: "    view: {max_age: 2m}\n", want: true},
		{name: "enabled: true", extra: "    view: {enabled: true}\n", want: true},
		{name: "environment turns it off", env: map[string]string{"HYPERFLEET_MAESTRO_VIEW_ENABLED": "false"}, want: false},
		{name: "environment beats the file", extra: "    view: {enabled: false}\n",
			env: map[string]string{"HYPERFLEET_MAESTRO_VIEW_ENABLED": "true"}, want: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			path := filepath.Join(t.TempDir(), "adapter.yaml")
			if err := os.WriteFile(path, append(append([]byte{}, base...), c.extra...), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := LoadAdapterConfig(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Clients.Maestro.View.Enabled; got != c.want {
				t.Errorf("clients.maestro.view.enabled = %v, want %v", got, c.want)
			}
		})
	}
}
