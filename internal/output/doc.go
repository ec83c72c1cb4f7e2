// Package output presents the report model: the Presenter interface and its explicit Registry
// (a format is one entry of the list its command builds, internal/output/formats), the score
// layout every score presenter shares (Columns, Layout, Tables, WriteScores over report.Metrics,
// the one metric table), ExportRun for the export presenters, and the stats, comparison and
// union writers. One package a format lives under it (text, md, json, csv, sarif, jsonl,
// openvex, html); presenters compute nothing and read no store.
package output
