package task

import (
	"fmt"
	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"strings"
)

// Operators of structured conditions.
var conditionOperators = []string{"equals", "notEquals", "in", "notIn", "contains", "greaterThan", "lessThan", "exists"}

// conditionsToCEL translates structured conditions into one CEL expression
// (all conditions must hold), so conditions and expressions share one
// evaluation path. path is the YAML path of the conditions list.
func conditionsToCEL(l *configfile.ErrorList, path string, conds []Condition) (string, bool) {
	parts := make([]string, 0, len(conds))
	ok := true
	for i, c := range conds {
		p := configfile.IndexPath(path, i)
		s, err := conditionToCEL(c)
		if err != nil {
			l.Add(p, "%v", err)
			ok = false
			continue
		}
		parts = append(parts, "("+s+")")
	}
	if len(parts) == 0 {
		return "true", ok
	}
	return strings.Join(parts, " && "), ok
}

func conditionToCEL(c Condition) (string, error) {
	if c.Field == "" {
		return "", fmt.Errorf("field is required")
	}
	if c.Values != nil {
		if c.Value != nil {
			return "", fmt.Errorf("set value or values, not both")
		}
		c.Value = c.Values
	}
	if c.Operator == "exists" {
		if !strings.Contains(c.Field, ".") {
			return c.Field + " != null", nil
		}
		return "has(" + c.Field + ")", nil
	}
	v, err := celenv.Literal(c.Value)
	if err != nil {
		return "", fmt.Errorf("value: %v", err)
	}
	f := c.Field
	switch c.Operator {
	case "equals":
		return f + " == " + v, nil
	case "notEquals":
		return f + " != " + v, nil
	case "in":
		return f + " in " + v, nil
	case "notIn":
		return "!(" + f + " in " + v + ")", nil
	case "contains":
		return fmt.Sprintf("type(%s) == string ? string(%s).contains(%s) : %s in %s", f, f, v, v, f), nil
	case "greaterThan":
		return f + " > " + v, nil
	case "lessThan":
		return f + " < " + v, nil
	case "":
		return "", fmt.Errorf("operator is required (one of %s)", strings.Join(conditionOperators, ", "))
	default:
		return "", fmt.Errorf("operator %q is not one of %s", c.Operator, strings.Join(conditionOperators, ", "))
	}
}
