package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// dupFrame is one open JSON object or array while checkDuplicateMembers
// walks the tokens: an object's members seen so far, an array's index.
type dupFrame struct {
	path      string
	seen      map[string]bool
	index     int
	expectKey bool
}

// checkDuplicateMembers refuses JSON in which an object, at any depth,
// gives a member twice: encoding/json keeps the last silently, so
// {"id":"c1","id":"c2"} would reconcile c2. The error names the member's
// path ("owner_references.id", "l[0].x"). Malformed JSON is left to the
// decoder (nil here).
func checkDuplicateMembers(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var stack []*dupFrame
	var key string // the member whose value comes next
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		var top *dupFrame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.seen != nil && top.expectKey {
			if tok == json.Delim('}') {
				stack = stack[:len(stack)-1]
				valueDone(stack)
				continue
			}
			key, _ = tok.(string)
			if top.seen[key] {
				return fmt.Errorf("member %.80q is given twice", joinPath(top.path, key))
			}
			top.seen[key] = true
			top.expectKey = false
			continue
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			f := &dupFrame{path: childPath(top, key)}
			if tok == json.Delim('{') {
				f.seen, f.expectKey = map[string]bool{}, true
			}
			stack = append(stack, f)
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone(stack)
		default:
			valueDone(stack)
		}
	}
}

// valueDone records that a value of the innermost open object or array
// ended: an object expects its next key, an array counts the element.
func valueDone(stack []*dupFrame) {
	if len(stack) == 0 {
		return
	}
	top := stack[len(stack)-1]
	if top.seen != nil {
		top.expectKey = true
	} else {
		top.index++
	}
}

// childPath is the path of a value opened inside top: its member key, or
// its index in an array.
func childPath(top *dupFrame, key string) string {
	switch {
	case top == nil:
		return ""
	case top.seen != nil:
		return joinPath(top.path, key)
	default:
		return top.path + "[" + strconv.Itoa(top.index) + "]"
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
