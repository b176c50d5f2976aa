package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// What the docs, `config dump` and validation errors say a zero Maestro
// setting means (config.AdapterBounds' Zero, "0 means 30") is what the
// client then applies: every clients.maestro leaf whose zero is a number
// or a duration must be listed here with the client's own default, so a
// default changed on one side only fails here.
func TestMaestroZeroMeansTheClientDefault(t *testing.T) {
	client := map[string]string{
		"clients.maestro.timeout":                    maestroclient.DefaultTimeout.String(),
		"clients.maestro.retry_attempts":             strconv.Itoa(maestroclient.DefaultRetryAttempts),
		"clients.maestro.max_concurrent_reads":       strconv.Itoa(maestroclient.DefaultMaxConcurrentReads),
		"clients.maestro.consumer_writes_per_second": fmt.Sprint(maestroclient.DefaultConsumerWritesPerSecond),
		"clients.maestro.consumer_write_burst":       strconv.Itoa(maestroclient.DefaultConsumerWriteBurst),
		"clients.maestro.consumer_writes_ceiling":    fmt.Sprint(maestroclient.DefaultConsumerWriteCeiling),
		"clients.maestro.consumer_write_window":      strconv.Itoa(maestroclient.DefaultConsumerWriteWindow),
		"clients.maestro.consumer_write_mode":        maestroclient.BudgetAdaptive,
		"clients.maestro.view.max_age":               shortDuration(view.DefaultMaxAge),
		"clients.maestro.view.list_page_size":        strconv.Itoa(maestroclient.DefaultListPageSize),
	}
	for path, b := range config.AdapterBounds {
		if !strings.HasPrefix(path, "clients.maestro.") || b.Zero == "" || strings.Contains(b.Zero, " ") {
			continue // not a Maestro leaf, or a zero described in words ("no pings")
		}
		want, ok := client[path]
		if !ok {
			t.Errorf("%s: config says 0 means %q; list the client's default for it here", path, b.Zero)
			continue
		}
		if b.Zero != want {
			t.Errorf("%s: config says 0 means %q, the Maestro client applies %q", path, b.Zero, want)
		}
	}
}

// shortDuration is a duration as the bounds write it: 5m, not 5m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	return strings.TrimSuffix(s, "0m")
}
