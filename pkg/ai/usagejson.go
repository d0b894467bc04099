package ai

import (
	"strconv"

	"gopi/internal/pijson"
)

// AppendJSON appends u as encoding/json writes it (its tags' names,
// order and omissions), without reflection: every assistant message
// carries one, and encoding/json's first look at the two types was a
// sizeable part of a one-turn run's instructions.
func (u *Usage) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"input":`...)
	b = strconv.AppendInt(b, u.Input, 10)
	b = append(b, `,"output":`...)
	b = strconv.AppendInt(b, u.Output, 10)
	b = append(b, `,"cacheRead":`...)
	b = strconv.AppendInt(b, u.CacheRead, 10)
	b = append(b, `,"cacheWrite":`...)
	b = strconv.AppendInt(b, u.CacheWrite, 10)
	if u.Reasoning != nil {
		b = append(b, `,"reasoning":`...)
		b = strconv.AppendInt(b, *u.Reasoning, 10)
	}
	b = append(b, `,"totalTokens":`...)
	b = strconv.AppendInt(b, u.TotalTokens, 10)
	b = append(b, `,"cost":`...)
	b, err := u.Cost.AppendJSON(b)
	if err != nil {
		return b, err
	}
	if u.CacheWrite1h != nil {
		b = append(b, `,"cacheWrite1h":`...)
		b = strconv.AppendInt(b, *u.CacheWrite1h, 10)
	}
	return append(b, '}'), nil
}

// AppendJSON appends c as encoding/json writes it; a NaN or an infinity
// is encoding/json's error.
func (c *Cost) AppendJSON(b []byte) ([]byte, error) {
	var err error
	for _, f := range [...]struct {
		key string
		v   float64
	}{{`{"input":`, c.Input}, {`,"output":`, c.Output}, {`,"cacheRead":`, c.CacheRead}, {`,"cacheWrite":`, c.CacheWrite}, {`,"total":`, c.Total}} {
		b = append(b, f.key...)
		if b, err = pijson.AppendFloat(b, f.v); err != nil {
			return b, err
		}
	}
	if c.TotalFromProvider != nil {
		b = append(b, `,"totalFromProvider":`...)
		b = strconv.AppendBool(b, *c.TotalFromProvider)
	}
	return append(b, '}'), nil
}
