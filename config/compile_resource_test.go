package config

import (
	"strings"
	"testing"
)

func TestDiscoveryNamespaceOnBundleWarns(t *testing.T) {
	l := newErrorList("x.yaml")
	r := Resource{Discovery: &Discovery{Namespace: Text{Src: "*", Path: "resources[0].discovery.namespace"}, ByName: Text{Src: "n"}}}
	r.Transport = Transport{Client: "maestro", Maestro: &MaestroTransport{TargetCluster: Text{Src: "c1"}}}
	compileResource(l, nil, refs{dir: "."}, &r, "resources[0]")
	if len(l.warns) != 1 || !strings.Contains(l.warns[0].Error(), "resources[0].discovery.namespace: has no effect on a bundle") {
		t.Errorf("want one warning on discovery.namespace, got %v", l.warns)
	}
}
