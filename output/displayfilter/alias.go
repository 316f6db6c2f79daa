package displayfilter

import (
	"github.com/expr-lang/expr/ast"

	"github.com/kdissect/kdissect/codec"
)

// apiAliases rewrites an API's former name compared with api (api ==
// "ListClientMetricsResources", api in [...]) to the name Kafka gives it
// now, which is what an exchange's api holds: a filter written for the
// older name keeps finding the exchanges.
type apiAliases struct{}

func (apiAliases) Visit(n *ast.Node) {
	b, ok := (*n).(*ast.BinaryNode)
	if !ok {
		return
	}
	switch b.Operator {
	case "==", "!=", "in", "not in":
	default:
		return
	}
	if isAPI(b.Left) {
		renameAPI(b.Right)
	} else if isAPI(b.Right) && b.Operator != "in" && b.Operator != "not in" {
		renameAPI(b.Left)
	}
}

func isAPI(n ast.Node) bool {
	id, ok := n.(*ast.IdentifierNode)
	return ok && id.Value == "api"
}

// renameAPI renames a string, or the strings of an array, in place.
func renameAPI(n ast.Node) {
	switch n := n.(type) {
	case *ast.StringNode:
		if now, ok := codec.RenamedAPI(n.Value); ok {
			n.Value = now
		}
	case *ast.ArrayNode:
		for _, e := range n.Nodes {
			renameAPI(e)
		}
	}
}
