// Package layers holds no code: its test checks that the module's import
// graph keeps the one-way rules docs/architecture.md states (codec imports
// nothing of ours; dissect's core knows nothing of what consumes
// exchanges; client knows only codec; test helpers stay out of the
// product), and that the graph quoted there is the graph as it is.
package layers
