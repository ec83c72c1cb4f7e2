package sarif

import (
	"bytes"
	"strconv"

	"github.com/buger/jsonparser"
)

// The decoders below visit only the keys a finding needs; jsonparser skips every other value
// without decoding it, which is what makes 50 MB files read in about a second. A value of the
// wrong type (null, a number where a string belongs) is read leniently or ignored.

func (r *rawRun) decode(v []byte) error {
	var results [][]byte // decoded after the rules, which may come later in the file
	err := jsonparser.ObjectEach(v, func(k, v []byte, t jsonparser.ValueType, _ int) error {
		switch string(k) {
		case "tool":
			return jsonparser.ObjectEach(v, func(k, v []byte, t jsonparser.ValueType, _ int) error {
				switch string(k) {
				case "driver":
					return r.Driver.decode(v, t)
				case "extensions":
					return each(v, t, func(v []byte, t jsonparser.ValueType) error {
						var c rawComponent
						err := c.decode(v, t)
						r.Extensions = append(r.Extensions, c)
						return err
					})
				}
				return nil
			})
		case "taxonomies":
			return each(v, t, func(v []byte, t jsonparser.ValueType) error {
				var c rawComponent
				err := c.decode(v, t)
				r.Taxonomies = append(r.Taxonomies, c)
				return err
			})
		case "artifacts":
			return each(v, t, func(v []byte, t jsonparser.ValueType) error {
				u, ut, _, _ := jsonparser.Get(v, "location", "uri")
				r.Artifacts = append(r.Artifacts, scalar(u, ut))
				return nil
			})
		case "results":
			return each(v, t, func(v []byte, t jsonparser.ValueType) error {
				if t == jsonparser.Object {
					results = append(results, v)
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.Results = make([]rawResult, len(results))
	for i, v := range results {
		if err := r.Results[i].decode(v); err != nil {
			return err
		}
	}
	return nil
}

func (c *rawComponent) decode(v []byte, t jsonparser.ValueType) error {
	if t != jsonparser.Object {
		return nil
	}
	return jsonparser.ObjectEach(v, func(k, v []byte, t jsonparser.ValueType, _ int) error {
		switch string(k) {
		case "name":
			c.Name = scalar(v, t)
		case "version":
			c.Version = scalar(v, t)
		case "semanticVersion":
			c.SemanticVersion = scalar(v, t)
		case "rules", "taxa":
			var list []rawRule
			err := each(v, t, func(v []byte, t jsonparser.ValueType) error {
				var r rawRule
				err := r.decode(v, t)
				list = append(list, r)
				return err
			})
			if string(k) == "rules" {
				c.Rules = list
			} else {
				c.Taxa = list
			}
			return err
		}
		return nil
	})
}

func (r *rawRule) decode(v []byte, t jsonparser.ValueType) error {
	if t != jsonparser.Object {
		return nil
	}
	return jsonparser.ObjectEach(v, func(k, v []byte, t jsonparser.ValueType, _ int) error {
		switch string(k) {
		case "id":
			r.ID = scalar(v, t)
		case "name":
			r.Name = scalar(v, t)
		case "defaultConfiguration":
			if t == jsonparser.Object {
				l, lt, _, _ := jsonparser.Get(v, "level")
				r.DefaultLevel = scalar(l, lt)
			}
		case "messageStrings":
			if t != jsonparser.Object {
				return nil
			}
			r.MessageStrings = map[string]string{}
			return jsonparser.ObjectEach(v, func(k, v []byte, t jsonparser.ValueType, _ int) error {
				if t == jsonparser.Object {
					s, st, _, _ := jsonparser.Get(v, "text")
					r.MessageStrings[string(k)] = scalar(s, st)
				}
				return nil
			})
		case "properties":
			return r.Properties.decode(v, t)
		case "relationships":
			return each(v, t, func(v []byte, t jsonparser.ValueType) error {
				if t != jsonparser.Object {
					return nil
				}
				tv, tt, _, _ := jsonparser.Get(v, "target")
				var ref rawReference
				err := ref.decode(tv, tt)
				r.Relationships = append(r.Relationships, ref)
				return err
			})
		}
		return nil
	})
}

func (p *rawProperties) decode(v []byte, t jsonparser.ValueType) error {
	if t != jsonparser.Object {
		return nil
	}
	return jsonparser.ObjectEach(v, func(k, v []byte, t jsonparser.ValueType, _ int) error {
		switch {
		case string(k) == "tags":
			return each(v, t, func(v []byte, t jsonparser.ValueType) error {
				p.Tags = append(p.Tags, scalar(v, t))
				return nil
			})
		case bytes.EqualFold(k, []byte("cwe")):
			p.CWE, p.CWEType = v, t
		}
		return nil
	})
}

func (ref *rawReference) decode(v []byte, t jsonparser.ValueType) error {
	if t != jsonparser.Object {
		return nil
	}
	return jsonparser.ObjectEach(v, func(k, v []byte, t jsonparser.ValueType, _ int) error {
		switch string(k) {
		case "id":
			ref.ID = scalar(v, t)
		case "index":
			ref.Index = integer(v, t)
		case "toolComponent":
			if t == jsonparser.Object {
				n, nt, _, _ := jsonparser.Get(v, "name")
				ref.ToolComponentName = scalar(n, nt)
				i, it, _, _ := jsonparser.Get(v, "index")
				ref.ToolComponentIndex = integer(i, it)
			}
		}
		return nil
	})
}

func (res *rawResult) decode(v []byte) error {
	return jsonparser.ObjectEach(v, func(k, v []byte, t jsonparser.ValueType, _ int) error {
		switch string(k) {
		case "ruleId":
			res.RuleID = scalar(v, t)
		case "ruleIndex":
			res.RuleIndex = integer(v, t)
		case "rule":
			return res.Rule.decode(v, t)
		case "level":
			res.Level = scalar(v, t)
		case "message":
			return res.Message.decode(v, t)
		case "locations":
			return res.decodeLocations(v, t)
		case "taxa":
			return each(v, t, func(v []byte, t jsonparser.ValueType) error {
				var ref rawReference
				err := ref.decode(v, t)
				res.Taxa = append(res.Taxa, ref)
				return err
			})
		case "properties":
			return res.Properties.decode(v, t)
		}
		return nil
	})
}

// decodeLocations reads the first location's physical location: the primary one.
func (res *rawResult) decodeLocations(v []byte, t jsonparser.ValueType) error {
	if t != jsonparser.Array {
		return nil
	}
	first, ft, _, err := jsonparser.Get(v, "[0]")
	if err != nil || ft != jsonparser.Object {
		return nil
	}
	pl, pt, _, _ := jsonparser.Get(first, "physicalLocation")
	if pt != jsonparser.Object {
		return nil
	}
	res.HasLoc = true
	return jsonparser.ObjectEach(pl, func(k, v []byte, t jsonparser.ValueType, _ int) error {
		if t != jsonparser.Object {
			return nil
		}
		switch string(k) {
		case "artifactLocation":
			u, ut, _, _ := jsonparser.Get(v, "uri")
			res.URI = scalar(u, ut)
			i, it, _, _ := jsonparser.Get(v, "index")
			res.URIIndex = integer(i, it)
		case "region":
			s, st, _, _ := jsonparser.Get(v, "startLine")
			res.StartLine = integer(s, st)
			e, et, _, _ := jsonparser.Get(v, "endLine")
			res.EndLine = integer(e, et)
		}
		return nil
	})
}

func (m *rawMessage) decode(v []byte, t jsonparser.ValueType) error {
	if t != jsonparser.Object {
		return nil
	}
	return jsonparser.ObjectEach(v, func(k, v []byte, t jsonparser.ValueType, _ int) error {
		switch string(k) {
		case "text":
			m.Text = scalar(v, t)
		case "id":
			m.ID = scalar(v, t)
		case "arguments":
			return each(v, t, func(v []byte, t jsonparser.ValueType) error {
				m.Arguments = append(m.Arguments, scalar(v, t))
				return nil
			})
		}
		return nil
	})
}

// each calls fn for every element of an array; anything else (null, a lone object) has none.
func each(v []byte, t jsonparser.ValueType, fn func([]byte, jsonparser.ValueType) error) error {
	if t != jsonparser.Array {
		return nil
	}
	var ferr error
	_, err := jsonparser.ArrayEach(v, func(v []byte, t jsonparser.ValueType, _ int, _ error) {
		if ferr == nil {
			ferr = fn(v, t)
		}
	})
	if err != nil {
		return err
	}
	return ferr
}

// scalar is a string value unescaped, a number or boolean as written, and "" for anything else.
func scalar(v []byte, t jsonparser.ValueType) string {
	switch t {
	case jsonparser.String:
		if bytes.IndexByte(v, '\\') < 0 {
			return string(v)
		}
		s, err := jsonparser.ParseString(v)
		if err != nil {
			return string(v)
		}
		return s
	case jsonparser.Number, jsonparser.Boolean:
		return string(v)
	}
	return ""
}

// integer reads a number or a string of digits; a float is truncated.
func integer(v []byte, t jsonparser.ValueType) lint {
	if t != jsonparser.Number && t != jsonparser.String {
		return lint{}
	}
	if i, err := strconv.Atoi(string(v)); err == nil {
		return lint{v: i, set: true}
	}
	if f, err := strconv.ParseFloat(string(v), 64); err == nil {
		return lint{v: int(f), set: true}
	}
	return lint{}
}
