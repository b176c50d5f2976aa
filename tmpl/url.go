package tmpl

import (
	"fmt"
	"net/url"
	"text/template/parse"
)

// ParseURL compiles an api_call url. It is Parse with
// contextual escaping (see escape.go): every value printed after
// literal text is escaped for where it sits, so a value can never add a
// path segment, a query or a fragment:
//
//   - in the path ("/clusters/{{ .clusterId }}/statuses"): escaped as one
//     path segment (url.PathEscape: "c1?x=" -> "c1%3Fx=", "a/b" ->
//     "a%2Fb"); a value that prints empty or null fails the render;
//   - after a literal "?": escaped as a query component (url.QueryEscape);
//   - after a literal "#": refused at load (a fragment is never sent).
//
// A value printed first, before any literal text ("{{ .href }}" or
// "{{ .href }}/statuses"), is the URL's start and is not escaped: it may be
// an absolute URL or a whole path. Whatever it holds, the HyperFleet API
// client then refuses a URL that leaves the configured API (another origin,
// ".." segments; see hyperfleetapi.Resolver). Values inside {{range}} are
// always escaped; {{template}} and {{define}} are refused.
func ParseURL(name, src string) (*Template, error) {
	return parseEscaped(name, src, func(t *parse.Tree) error {
		_, err := (&urlEscaper{}).list(t.Root, urlLead)
		return err
	})
}

// urlCtx is where the next printed value of a URL template lands.
type urlCtx int

const (
	urlLead     urlCtx = iota // nothing written yet
	urlPath                   // in the path
	urlQuery                  // after '?'
	urlFragment               // after '#'
)

// urlEscaper walks a URL template in document order. In dry mode it only
// computes the context a list ends in.
type urlEscaper struct{ dry bool }

func (e *urlEscaper) list(l *parse.ListNode, c urlCtx) (urlCtx, error) {
	if l == nil {
		return c, nil
	}
	var err error
	for _, n := range l.Nodes {
		if c, err = e.node(n, c); err != nil {
			return c, err
		}
	}
	return c, nil
}

func (e *urlEscaper) node(n parse.Node, c urlCtx) (urlCtx, error) {
	switch x := n.(type) {
	case *parse.TextNode:
		return urlAfterText(string(x.Text), c), nil
	case *parse.ActionNode:
		return e.action(x, c)
	case *parse.IfNode:
		return e.branch(&x.BranchNode, c)
	case *parse.WithNode:
		return e.branch(&x.BranchNode, c)
	case *parse.RangeNode:
		return e.rangeNode(x, c)
	case *parse.TemplateNode:
		return c, errTemplateCall("a URL")
	}
	return c, nil
}

func (e *urlEscaper) action(a *parse.ActionNode, c urlCtx) (urlCtx, error) {
	if !prints(a) {
		return c, nil
	}
	switch c {
	case urlLead:
		return urlPath, nil
	case urlFragment:
		return c, fmt.Errorf("a value after '#' is not supported: a URL fragment is never sent")
	}
	if !e.dry {
		fn := escURLSegment
		if c == urlQuery {
			fn = escURLQuery
		}
		appendEscaper(a, fn)
	}
	return c, nil
}

// branch: either list may run, so what follows sees the further context.
func (e *urlEscaper) branch(b *parse.BranchNode, c urlCtx) (urlCtx, error) {
	a, err := e.list(b.List, c)
	if err != nil {
		return a, err
	}
	el, err := e.list(b.ElseList, c)
	return max(a, el), err
}

// rangeNode: the body may run after itself, so it is walked in the context
// that a first iteration leaves; nothing in a loop is the URL's start.
func (e *urlEscaper) rangeNode(r *parse.RangeNode, c urlCtx) (urlCtx, error) {
	c = max(c, urlPath)
	end, err := (&urlEscaper{dry: true}).list(r.List, c)
	if err != nil {
		return c, err
	}
	return e.branch(&r.BranchNode, max(c, end))
}

func urlAfterText(s string, c urlCtx) urlCtx {
	if s != "" && c == urlLead {
		c = urlPath
	}
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '#':
			c = urlFragment
		case s[i] == '?' && c < urlQuery:
			c = urlQuery
		}
	}
	return c
}

// urlSegmentEscaper prints v as exactly one path segment.
func urlSegmentEscaper(v any) (string, error) {
	s, err := printedScalar(v)
	if err == nil && s == "" {
		err = fmt.Errorf("the value is empty")
	}
	if err != nil {
		return "", fmt.Errorf("URL path segment: %w", err)
	}
	return url.PathEscape(s), nil
}

// urlQueryEscaper prints v as one query component.
func urlQueryEscaper(v any) (string, error) {
	s, err := printedScalar(v)
	if err != nil {
		return "", fmt.Errorf("URL query value: %w", err)
	}
	return url.QueryEscape(s), nil
}

// printedScalar is printed for a scalar; an object or list (which would
// print as Go's "map[a:b]") is an error.
func printedScalar(v any) (string, error) {
	switch v.(type) {
	case map[string]any, []any:
		return "", fmt.Errorf("an object or list is not a URL value")
	}
	return printed(v)
}
