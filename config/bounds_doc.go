package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// BoundsMarkdown is the bounds of both config files as the Markdown tables
// of docs/configuration.md (a test keeps the page equal to it): key, the
// variable that overrides it, minimum, maximum, what 0 means, and why.
func BoundsMarkdown() string {
	var b strings.Builder
	boundsTable(&b, "Adapter config", AdapterBounds, func(p string) string { return adapterEnvNames(p)[0] })
	b.WriteString("\n")
	boundsTable(&b, "Broker config", BrokerBounds, func(p string) string { return brokerEnvNames(p)[0] })
	return b.String()
}

func boundsTable(b *strings.Builder, title string, table map[string]Bound, env func(string) string) {
	paths := make([]string, 0, len(table))
	for p := range table {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	fmt.Fprintf(b, "%s:\n\n| key | env | min | max | 0 means | max because |\n|---|---|---|---|---|---|\n", title)
	for _, p := range paths {
		bd := table[p]
		lo, hi := bd.describe(leafKind(title, p))
		zero := bd.Zero
		if zero == "" {
			zero = "—"
		}
		fmt.Fprintf(b, "| `%s` | `%s` | %s | %s | %s | %s |\n", p, env(p), lo, hi, zero, bd.Why)
	}
}

// leafKind is "duration", "name", "float" or "int" for the leaf at path.
func leafKind(title, path string) string {
	var t = leafTypeOf(AdapterConfig{}, path)
	if strings.HasPrefix(title, "Broker") {
		t = leafTypeOf(BrokerConfig{}, path)
	}
	return t
}

// describe writes the range as the docs show it.
func (b Bound) describe(kind string) (string, string) {
	switch kind {
	case "duration":
		return formatDuration(b.Min), formatDuration(b.Max)
	case "name":
		return strconv.FormatInt(b.Min, 10) + " bytes", strconv.FormatInt(b.Max, 10) + " bytes"
	case "float":
		return strconv.FormatFloat(b.MinF, 'g', -1, 64), strconv.FormatFloat(b.MaxF, 'g', -1, 64)
	}
	return strconv.FormatInt(b.Min, 10), strconv.FormatInt(b.Max, 10)
}
