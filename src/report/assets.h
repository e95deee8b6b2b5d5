/* assets.h — the report's embedded scripts and styles (uPlot, pinned in web/, and our glue),
 * generated into the build by scripts/embed_assets.py. NUL-terminated; read only. */
#ifndef DG_REPORT_ASSETS_H
#define DG_REPORT_ASSETS_H

extern const char dg_asset_uplot_js[], dg_asset_uplot_css[];
extern const char dg_asset_report_js[], dg_asset_report_css[];
extern const unsigned long dg_asset_uplot_js_len, dg_asset_uplot_css_len;
extern const unsigned long dg_asset_report_js_len, dg_asset_report_css_len;

#endif
