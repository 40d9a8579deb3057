package importer

import (
	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/memory"
)

// Result is what Apply wrote.
type Result struct {
	IndexSHA256 string
	PageCount   int
}

// Apply writes a plan: pages and assets through the engine's locked,
// atomic, hash-checked writer in one operation that ends with the
// rebuild-index (gitvault.Engine.WriteImport), or memories through the
// memory vault's create-only save. Every page's current hash, read while
// planning, is checked again under the lock.
func Apply(p *Plan, opt Options) (*Result, error) {
	if p.Into == IntoMemories {
		for i := range p.Memories {
			mw := &p.Memories[i]
			if mw.Action == "unchanged" {
				continue
			}
			_, existed, err := memory.SaveImported(opt.Roots, mw.in, mw.ID)
			if err != nil {
				return nil, err
			}
			if existed {
				mw.Action = "unchanged"
			}
		}
		return &Result{}, nil
	}
	pages := make([]gitvault.ImportPage, 0, len(p.Pages))
	for _, pw := range p.Pages {
		pages = append(pages, gitvault.ImportPage{Filename: pw.Name, Content: pw.Content, ExpectedSHA256: pw.sha})
	}
	var assets []gitvault.ImportAsset
	for _, a := range p.Assets {
		if a.Action != "unchanged" {
			assets = append(assets, gitvault.ImportAsset{Name: a.File[len("EchoesVault/assets/"):], Data: a.data})
		}
	}
	res, err := opt.Engine.WriteImport(pages, assets)
	if err != nil {
		return nil, err
	}
	return &Result{IndexSHA256: res.IndexSHA256, PageCount: res.PageCount}, nil
}
