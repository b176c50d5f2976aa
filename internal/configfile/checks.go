package configfile

import (
	"slices"
	"strings"
)

func OneOf(l *ErrorList, path, got string, allowed ...string) {
	if !slices.Contains(allowed, got) {
		l.Add(path, "must be one of %s, not %q", strings.Join(quoteAll(allowed), ", "), got)
	}
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		if s == "" {
			out[i] = `""`
			continue
		}
		out[i] = s
	}
	return out
}

// uniqueNames reports a second use of a name within one list.
type uniqueNames struct {
	l    *ErrorList
	what string
	seen map[string]string
}

func NewUniqueNames(l *ErrorList, what string) *uniqueNames {
	return &uniqueNames{l: l, what: what, seen: map[string]string{}}
}

// check records name at path; it returns false when name is empty or taken.
func (u *uniqueNames) Check(path, name string) bool {
	if name == "" {
		u.l.Add(path+".name", "is required")
		return false
	}
	if first, dup := u.seen[name]; dup {
		u.l.Add(path+".name", "%s name %q is already used at %s", u.what, name, first)
		return false
	}
	u.seen[name] = path
	return true
}
