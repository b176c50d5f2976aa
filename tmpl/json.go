package tmpl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"text/template/parse"
)

// ParseJSON compiles an api_call body, which must render JSON. It
// is Parse with contextual escaping (see escape.go): the
// literal text is scanned as JSON, and every printed value is escaped for
// where it sits, so no value can change the body's structure:
//
//   - inside a JSON string ('{"a": "{{ .name }}"}'): the value is escaped
//     as string content (quotes, backslashes and control characters
//     escaped), so it cannot end the string;
//   - anywhere else ('{{ .status }}', '{"g": {{ .generation }}}'): the value
//     must be exactly one JSON value: a string is used as it is when it is
//     one complete JSON text (a payload bound as JSON, "42", "true"), and
//     fails the render otherwise; numbers and booleans print as JSON,
//     objects and lists are encoded as JSON.
//
// A complete JSON value is balanced, so it cannot close the object around
// it or add a key beside itself; a string's content cannot leave the
// string. The literal text alone thus fixes the structure. A template
// without {{if}}, {{with}} or {{range}} whose text is not JSON whatever the
// values ('{{ .status }},x') fails here, at load (checkJSONSkeleton); any
// rendered body is checked again before it is sent (ValidJSONBody), so
// invalid JSON is never sent. {{if}} and {{with}} branches must end in the same JSON context
// and a {{range}} body where it began; {{template}} and {{define}} are
// refused. A value printed right after a backslash inside a string is
// refused at load.
func ParseJSON(name, src string) (*Template, error) {
	t, err := parseEscaped(name, src, func(t *parse.Tree) error {
		end, err := escapeJSONList(t.Root, jsonValue)
		if err == nil && end != jsonValue {
			err = fmt.Errorf("a JSON string is not closed")
		}
		if err == nil {
			err = checkJSONSkeleton(t.Root)
		}
		return err
	})
	if err == nil && t.Literal && src != "" {
		err = ValidJSONBody([]byte(src))
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// ValidJSONBody reports whether b is exactly one JSON value, with the
// position of the first error.
func ValidJSONBody(b []byte) error {
	if json.Valid(b) {
		return nil
	}
	var v any
	err := json.Unmarshal(b, &v)
	if err == nil {
		err = fmt.Errorf("not one JSON value")
	}
	return fmt.Errorf("body is not valid JSON: %v", err)
}

// checkJSONSkeleton proves at load that a template without control
// structures renders JSON whatever its values: each value outside a string
// is one JSON value (stood for by 0), each one inside a string string
// content (stood for by nothing), so the text with those stand-ins must be
// JSON. Templates with {{if}}, {{range}} or {{with}} are checked when
// rendered (ValidJSONBody).
func checkJSONSkeleton(root *parse.ListNode) error {
	var b bytes.Buffer
	c := jsonValue
	for _, n := range root.Nodes {
		switch x := n.(type) {
		case *parse.TextNode:
			b.Write(x.Text)
			c = jsonAfterText(string(x.Text), c)
		case *parse.ActionNode:
			if prints(x) && c == jsonValue {
				b.WriteString("0")
			}
		case *parse.CommentNode:
		default:
			return nil
		}
	}
	if err := ValidJSONBody(b.Bytes()); err != nil {
		return fmt.Errorf("%v whatever the values (each value outside quotes must be one JSON value, 0 here: %.200s)", err, b.String())
	}
	return nil
}

// jsonCtx is where the next printed value of a JSON template lands.
type jsonCtx int

const (
	jsonValue     jsonCtx = iota // outside any string
	jsonString                   // inside a string
	jsonStringEsc                // inside a string, right after a backslash
)

func escapeJSONList(l *parse.ListNode, c jsonCtx) (jsonCtx, error) {
	if l == nil {
		return c, nil
	}
	var err error
	for _, n := range l.Nodes {
		if c, err = escapeJSONNode(n, c); err != nil {
			return c, err
		}
	}
	return c, nil
}

func escapeJSONNode(n parse.Node, c jsonCtx) (jsonCtx, error) {
	switch x := n.(type) {
	case *parse.TextNode:
		return jsonAfterText(string(x.Text), c), nil
	case *parse.ActionNode:
		return c, escapeJSONAction(x, c)
	case *parse.IfNode:
		return escapeJSONBranch(&x.BranchNode, c, "{{if}}")
	case *parse.WithNode:
		return escapeJSONBranch(&x.BranchNode, c, "{{with}}")
	case *parse.RangeNode:
		return escapeJSONBranch(&x.BranchNode, c, "{{range}}")
	case *parse.TemplateNode:
		return c, errTemplateCall("a JSON body")
	}
	return c, nil
}

func escapeJSONAction(a *parse.ActionNode, c jsonCtx) error {
	if !prints(a) {
		return nil
	}
	switch c {
	case jsonStringEsc:
		return fmt.Errorf("a value printed right after a backslash in a JSON string is not supported")
	case jsonString:
		appendEscaper(a, escJSONString)
	default:
		appendEscaper(a, escJSONValue)
	}
	return nil
}

// escapeJSONBranch requires every way through a branch (and a range body,
// which may repeat) to end in the context it began in.
func escapeJSONBranch(b *parse.BranchNode, c jsonCtx, what string) (jsonCtx, error) {
	for _, l := range []*parse.ListNode{b.List, b.ElseList} {
		end, err := escapeJSONList(l, c)
		if err != nil {
			return c, err
		}
		if end != c {
			return c, fmt.Errorf("a %s branch ends inside a JSON string it did not start in (or the reverse): open and close strings within each branch", what)
		}
	}
	return c, nil
}

func jsonAfterText(s string, c jsonCtx) jsonCtx {
	for i := 0; i < len(s); i++ {
		switch {
		case c == jsonStringEsc:
			c = jsonString
		case c == jsonString && s[i] == '\\':
			c = jsonStringEsc
		case c == jsonString && s[i] == '"':
			c = jsonValue
		case c == jsonValue && s[i] == '"':
			c = jsonString
		}
	}
	return c
}

// jsonStringEscaper prints v as the content of a JSON string.
func jsonStringEscaper(v any) (string, error) {
	switch v.(type) {
	case map[string]any, []any:
		return "", fmt.Errorf("JSON string: an object or list would print as Go text; put it outside the quotes")
	}
	s, err := printed(v)
	if err != nil {
		return "", fmt.Errorf("JSON string: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return "", err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return string(b[1 : len(b)-1]), nil
}

// jsonValueEscaper prints v as exactly one JSON value.
func jsonValueEscaper(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", fmt.Errorf("JSON value: a value is missing (null)")
	case string:
		if !json.Valid([]byte(x)) {
			return "", fmt.Errorf("JSON value: %.60q is not one JSON value (put it inside quotes, or use toJson)", x)
		}
		return x, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("JSON value: %w", err)
	}
	return string(b), nil
}
