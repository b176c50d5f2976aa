package tmpl

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"
)

// Template execution bounds. Go's text/template cannot be interrupted from
// outside, so every execution carries a budget that the template itself
// spends, and every place where a template can do unbounded work goes
// through it:
//
//   - Steps: every range iteration and every call of a defined template
//     ({{ template }}, {{ block }}) is one step; an execution stops past
//     MaxSteps. A range spends its length (or its integer) when
//     it starts, at no cost per iteration; a range over an integer larger
//     than what is left runs what is left and the execution then fails.
//     Outside loops and calls a template does work bounded by its source,
//     so steps bound the time.
//   - Function results: every function (the documented set and the
//     builtins print, printf, println, html, js and urlquery) computes the
//     size of its result before building it and fails past
//     MaxFuncBytes, naming itself and the limit; the results of one
//     execution together may not exceed MaxWorkBytes.
//   - Output: MaxOutputBytes.
//   - Time: range starts, function calls, every 64th step and every 64th
//     write check the execution's context and MaxDuration. A
//     cancelled execution stops within a few steps, so a worker that gives
//     up on a render (timeout, shutdown) also stops the work.
//
// At parse, a template whose defined templates call each other in a cycle
// (recursion) or whose calls, expanded, exceed MaxSteps is refused
// (see Parse). At load, every template of a task config is executed
// once with sample values under this same budget (see LoadTaskConfig), so a
// template that can never finish fails validate, not every event.
const (
	MaxSteps     = 1_000_000
	MaxFuncBytes = MaxOutputBytes
	MaxWorkBytes = 4 * MaxOutputBytes
	MaxDuration  = 10 * time.Second
)

// Budget errors; the message of an execution stopped by one names the
// template and the limit.
var (
	ErrSteps = fmt.Errorf("exceeds the template step budget of %d range iterations and template calls", MaxSteps)
	ErrWork  = fmt.Errorf("function results exceed the template work budget of %d bytes", MaxWorkBytes)
	ErrTime  = fmt.Errorf("runs longer than the template time limit of %v", MaxDuration)
)

// errTemplateFuncLimit is wrapped by the error of a function whose result
// would exceed MaxFuncBytes.
var ErrFuncLimit = fmt.Errorf("over the template function limit of %d bytes", MaxFuncBytes)

func errTemplateFuncSize(fn string, size int) error {
	return fmt.Errorf("%s: the result would be %d bytes, %w", fn, size, ErrFuncLimit)
}

// checkFuncSize fails when a result of size bytes would exceed
// MaxFuncBytes. Callers compute size (or an upper bound) before
// building the result.
func checkFuncSize(fn string, size int) error {
	if size < 0 || size > MaxFuncBytes {
		return errTemplateFuncSize(fn, size)
	}
	return nil
}

// tmplState is the per-execution state of one pooled template clone: the
// injected clock and the budget. It is reset for every execution.
type tmplState struct {
	ctx      context.Context
	deadline time.Time
	now      time.Time
	steps    int
	work     int
	err      error // the budget error that stopped the execution, if any
}

func (s *tmplState) start(ctx context.Context, now time.Time) {
	s.ctx, s.now = ctx, now
	s.deadline = time.Now().Add(MaxDuration)
	s.steps, s.work, s.err = 0, 0, nil
}

func (s *tmplState) reset() {
	s.ctx, s.now, s.err = nil, time.Time{}, nil
}

// fail records err as the reason the execution stopped and returns it.
func (s *tmplState) fail(err error) error {
	if s.err == nil {
		s.err = err
	}
	return err
}

// live fails when the context is done or the deadline passed.
func (s *tmplState) live() error {
	if err := s.ctx.Err(); err != nil {
		return s.fail(context.Cause(s.ctx))
	}
	if time.Now().After(s.deadline) {
		return s.fail(ErrTime)
	}
	return nil
}

// step spends one step. It is the hidden action the parse tree
// instrumentation puts at the start of every defined template (a
// declaration: it prints nothing).
func (s *tmplState) step() (string, error) {
	s.steps++
	if s.steps > MaxSteps {
		return "", s.fail(ErrSteps)
	}
	if s.steps%tmplLiveEvery != 0 {
		return "", nil
	}
	return "", s.live()
}

// tmplLiveEvery is how often (in steps) step checks the context and the
// clock: a step costs about a microsecond, the check a few dozen
// nanoseconds, and a cancelled execution still stops within well under a
// millisecond of steps.
const tmplLiveEvery = 64

// rangeOver is the hidden last command of every range pipeline: a range
// over a list or map of n elements, or over an integer n, spends n steps
// when it starts. A list or map past the budget fails at once. An integer
// past it runs only the steps left and then fails the execution, so a loop
// stopped earlier by another limit (the output's) reports that limit.
func (s *tmplState) rangeOver(v reflect.Value) (reflect.Value, error) {
	if err := s.live(); err != nil {
		return v, err
	}
	x := v
	for (x.Kind() == reflect.Interface || x.Kind() == reflect.Pointer) && !x.IsNil() {
		x = x.Elem()
	}
	left := int64(MaxSteps - s.steps)
	n := int64(1)
	switch x.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n = max(x.Int(), 0)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n = int64(min(x.Uint(), math.MaxInt64))
	case reflect.Slice, reflect.Array, reflect.Map:
		if int64(x.Len()) > left {
			return v, s.fail(ErrSteps)
		}
		n = int64(x.Len())
	}
	if n > left {
		s.fail(ErrSteps)
		s.steps = MaxSteps
		return reflect.ValueOf(int(max(left, 0))), nil
	}
	s.steps += int(n)
	return v, nil
}

// spend charges n bytes of function results.
func (s *tmplState) spend(n int) error {
	s.work += n
	if s.work > MaxWorkBytes {
		return s.fail(ErrWork)
	}
	return s.live()
}

// str charges a string result; for use as return s.str(fn(...)).
func (s *tmplState) str(v string, err error) (string, error) {
	if err != nil {
		return "", err
	}
	if err := s.spend(len(v)); err != nil {
		return "", err
	}
	return v, nil
}

// stopped reports the budget error that stopped an execution, if one did:
// an execution whose integer range was cut short fails even when the rest
// of it ran.
func (s *tmplState) stopped(err error) error {
	if s.err != nil && !errors.Is(err, ErrTooLarge) {
		return s.err
	}
	return nil
}
