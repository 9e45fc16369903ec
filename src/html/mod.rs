//! One self-contained HTML page per report (`tpb conform`, `tpb evidence
//! --html`, `tpb evidence diff --html`): inline CSS, inline SVG, no script and
//! no network, so it opens from `file://` and reads without JavaScript.
//!
//! The pages are drawn from the same JSON the commands already write
//! (`Evidence::to_json`, `Diff::to_json`, the NEFF section's errata data):
//! collection stays where it is, this module only renders. Every string
//! reaches the page through maud, which escapes it: a member or build named
//! `<script>` is shown as text, never run. The parts are shared: conform's page
//! (`crate::conform::page`) is built from them, so this module knows no report
//! type of the CLI's.

mod page;

pub(crate) use page::{arr, errata, extras, groups, harness, layout, n, verdicts};
pub use page::{diff_page, evidence_page, Extra};
