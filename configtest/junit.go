package configtest

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// JUnit XML, the shape CI systems read (Jenkins, GitLab, GitHub actions):
// one testsuite per test file, one testcase per case.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func seconds(d interface{ Seconds() float64 }) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// junitReport builds the report: an invalid file is a suite holding one
// case in error; an updated case counts as passed.
func junitReport(reports []*fileReport) junitSuites {
	var out junitSuites
	var total float64
	for _, fr := range reports {
		s := junitSuite{Name: fr.path, Time: seconds(fr.elapsed)}
		total += fr.elapsed.Seconds()
		if fr.err != nil && len(fr.cases) == 0 {
			s.Cases = append(s.Cases, junitCase{Name: "load", ClassName: fr.path, Time: "0.000",
				Error: &junitProblem{Message: "invalid test file", Type: "invalid", Text: fr.err.Error()}})
		}
		for _, c := range fr.cases {
			jc := junitCase{Name: c.name, ClassName: fr.path, Time: seconds(c.elapsed)}
			switch {
			case c.invalid() != nil:
				jc.Error = &junitProblem{Message: "invalid step", Type: "invalid", Text: c.invalid().Error()}
			case c.failed() && !c.updated:
				var b strings.Builder
				printMismatches(&b, fr.path, c)
				jc.Failure = &junitProblem{Message: fmt.Sprintf("%d expectations not met", count(c)), Type: "expectation", Text: b.String()}
			}
			s.Cases = append(s.Cases, jc)
		}
		for _, c := range s.Cases {
			s.Tests++
			if c.Failure != nil {
				s.Failures++
			}
			if c.Error != nil {
				s.Errors++
			}
		}
		out.Tests, out.Failures, out.Errors = out.Tests+s.Tests, out.Failures+s.Failures, out.Errors+s.Errors
		out.Suites = append(out.Suites, s)
	}
	out.Time = fmt.Sprintf("%.3f", total)
	return out
}

func count(c *caseReport) int {
	n := 0
	for _, s := range c.steps {
		n += len(s.mismatches)
	}
	return n
}

// writeJUnit writes the report through writeReplacing: never over one of
// the run's inputs, a non-regular file, or through a link leaving the
// folder.
func writeJUnit(path string, reports []*fileReport, inputs []string) error {
	data, err := xml.MarshalIndent(junitReport(reports), "", "  ")
	if err != nil {
		return err
	}
	return writeReplacing(path, append([]byte(xml.Header), append(data, '\n')...), 0o644, inputs)
}
