package kubeclient

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/kubeerr"
)

// listPage is the number of objects asked for in one List request.
const listPage = 100

// List returns the objects of ref's kind in ref's namespace (every namespace
// when it is empty) whose labels equal every label given; ref.Name is
// ignored. It reads in pages of listPage objects and fails with
// adapter.ErrInvalid, holding no more, once more than Options.MaxListItems
// objects match: a selector that broad is a config error, not a result.
// A label key or value that Kubernetes would not accept on an object (one
// rendered from an event, say "x,env!=prod") is ErrInvalid naming it,
// before any request: it cannot add terms to the selector. A server that
// keeps paging (more than maxListPages pages, or a continue token it gave
// before) is ErrInvalid too: it cannot hold the caller.
func (c *Client) List(ctx context.Context, ref adapter.KubeRef, match map[string]string) ([]*unstructured.Unstructured, error) {
	ref.Name = ""
	selector, err := labels.ValidatedSelectorFromSet(match)
	if err != nil {
		return nil, classify("list", ref, kubeerr.Wrap(adapter.ErrInvalid, "labels %q: %w", match, err))
	}
	res, _, err := c.resource(ref, true)
	if err != nil {
		return nil, classify("list", ref, err)
	}
	opts := metav1.ListOptions{
		LabelSelector: selector.String(),
		Limit:         int64(min(listPage, c.maxList+1)),
	}
	var out []*unstructured.Unstructured
	seen := map[string]bool{}
	for pages := int64(1); ; pages++ {
		if pages > maxListPages(c.maxList) {
			return nil, classify("list", ref, kubeerr.Wrap(adapter.ErrInvalid, "the server answered more than %d pages (continue tokens without end)", maxListPages(c.maxList)))
		}
		page, err := res.List(ctx, opts)
		if err != nil {
			return nil, classify("list", ref, err)
		}
		for i := range page.Items {
			if len(out) == c.maxList {
				return nil, classify("list", ref, kubeerr.Wrap(adapter.ErrInvalid, "more than %d objects match labels %v", c.maxList, match))
			}
			out = append(out, &page.Items[i])
		}
		if opts.Continue = page.GetContinue(); opts.Continue == "" {
			return out, nil
		}
		if seen[opts.Continue] {
			return nil, classify("list", ref, kubeerr.Wrap(adapter.ErrInvalid, "the server answered a continue token it had already given (a loop)"))
		}
		seen[opts.Continue] = true
	}
}

// maxListPages is the most pages List follows for a cap of maxItems
// objects: twice the pages maxItems+1 objects need in full pages, and at
// least 4. A server may answer short pages; one answering more pages than
// that keeps handing out continue tokens (or empty pages) without end.
func maxListPages(maxItems int) int64 {
	return max(4, 2*int64((maxItems+listPage)/listPage))
}
