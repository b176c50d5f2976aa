package config

import (
	"reflect"
	"regexp"
	"sort"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// nameLeaf matches the last key of a string leaf that names something a
// server stores (a queue, an exchange, a consumer tag, a subscription, a
// topic, an id, a key, a context, a field manager, a version): such a
// leaf has a length bound.
var nameLeaf = regexp.MustCompile(`(^|_)(name|id|queue|exchange|tag|subscription|topic|key|context|manager|version)$`)

// boundedLeaves lists the leaves of t that must have a bound: every
// number (int*, uint*, float*, Duration) and every name-like string.
func boundedLeaves(t reflect.Type) []string {
	root := reflect.New(t).Elem()
	var out []string
	for _, p := range leafPaths(t, "") {
		v := leafType(root.Type(), p)
		switch {
		case v == configfile.DurationType:
		case v.Kind() >= reflect.Int && v.Kind() <= reflect.Float64:
		case v.Kind() == reflect.String && nameLeaf.MatchString(lastKey(p)):
		default:
			continue
		}
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Every numeric leaf and every name leaf of the adapter and broker configs
// has an entry in its bounds table, and every entry names a leaf: a field
// added without a bound fails here.
func TestEveryLeafHasABound(t *testing.T) {
	for _, c := range []struct {
		typ   reflect.Type
		table map[string]Bound
		name  string
	}{
		{reflect.TypeOf(AdapterConfig{}), AdapterBounds, "AdapterBounds"},
		{reflect.TypeOf(BrokerConfig{}), BrokerBounds, "BrokerBounds"},
	} {
		leaves := map[string]bool{}
		for _, p := range leafPaths(c.typ, "") {
			leaves[p] = true
		}
		for _, p := range boundedLeaves(c.typ) {
			if _, ok := c.table[p]; !ok {
				t.Errorf("%s has no bound for %s (%s): add one to config/bounds.go", c.name, p, leafType(c.typ, p))
			}
		}
		for p, b := range c.table {
			if !leaves[p] {
				t.Errorf("%s bounds %s, which is no leaf of %s", c.name, p, c.typ.Name())
			}
			if b.Why == "" {
				t.Errorf("%s[%s] does not say why its maximum is what it is", c.name, p)
			}
			if b.Max < b.Min || b.MaxF < b.MinF || (b.Max == 0 && b.MaxF == 0) {
				t.Errorf("%s[%s] = %+v: an empty or inverted range", c.name, p, b)
			}
		}
	}
}
