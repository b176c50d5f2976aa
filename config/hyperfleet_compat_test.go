package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func compatFile(name string) string { return filepath.Join("testdata", "hyperfleet", "compat", name) }

// discovery.namespace is a template checked at load like any other; on the
// bundle's own discovery it means nothing and loads with a warning.
func TestDiscoveryNamespaceIsATemplate(t *testing.T) {
	_, err := LoadTaskConfig(compatFile("discovery-namespace.yaml"))
	assertErrors(t, err, []string{
		`discovery-namespace.yaml:18: resources[0].nested_discoveries[1].discovery.namespace: template uses .nope`,
	})
	if strings.Contains(err.Error(), "nested_discoveries[0]") {
		t.Errorf("a templated namespace naming a param must load:\n%v", err)
	}
}

func TestDiscoveryNamespaceOnBundleWarns(t *testing.T) {
	l := newErrorList("x.yaml")
	r := Resource{Discovery: &Discovery{Namespace: Text{Src: "*", Path: "resources[0].discovery.namespace"}, ByName: Text{Src: "n"}}}
	r.Transport = Transport{Client: "maestro", Maestro: &MaestroTransport{TargetCluster: Text{Src: "c1"}}}
	compileResource(l, nil, refs{dir: "."}, &r, "resources[0]")
	if len(l.warns) != 1 || !strings.Contains(l.warns[0].Error(), "resources[0].discovery.namespace: has no effect on a bundle") {
		t.Errorf("want one warning on discovery.namespace, got %v", l.warns)
	}
}
