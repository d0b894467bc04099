package assemble

import (
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/ai/catalog"
)

// Models are the models a switch of model offers (rpc's
// get_available_models, acp's model option): the one in use first, then
// the catalog's models of its provider and every model the settings
// declare, described as a run would use them. They come from the
// Assembly's own settings (its folder, --bare), nothing is read again.
func (a *Assembly) Models() []ai.Info {
	cur := a.choice.Info
	out := []ai.Info{cur}
	listed, _ := ListModels(a.s.Model.Providers, "") // only a provider named ("") can be refused
	for _, m := range listed {
		if (m.Provider == cur.Provider || m.Declared) && !(m.Provider == cur.Provider && m.ID == cur.ID) {
			info := m.Info
			if info.Provider == cur.Provider && info.BaseURL == "" {
				info.BaseURL = cur.BaseURL // one provider, one address
			}
			out = append(out, info)
		}
	}
	return out
}

// DeclaredInfo is a model provider name declares in settings, with what
// the catalog knows of its id filled in, as a run uses it. One declared
// under a built-in provider's name (and no "api" of its own) takes the
// catalog's row of the same id, its own fields winning.
func DeclaredInfo(name string, p Provider, m ai.Info) ai.Info {
	builtin := p.API == "" && (name == "anthropic" || name == "openai")
	api := strings.TrimSuffix(p.API, "-responses")
	if builtin {
		api = name
	}
	info, _ := catalog.Resolve(api, m.ID)
	info = p.Describe(info, m)
	info.Provider, info.ID = name, m.ID
	if !builtin {
		info.API = p.API
	}
	return info
}
