package provider

// patchRiskDesc describes plan_patches[].risk (intent.PatchRisk,
// intent.CheckPatchApprovals).
const patchRiskDesc = "Risk level: `low`, `medium` or `high`; unset, the pack's `risk.default_level` (`high` for the built-in `kubernetes` pack). " +
	"A `high` patch is refused at plan until `approval.approved_by` names the provider's `actor`, who must hold one of `approval.roles` when it lists some. " +
	"The plan's changes show each patch's risk, e.g. `patch by alice (risk high): retry init-control-plane`."

// notEditableDesc says where customizations and plan patches are refused
// (intent.CheckEditable).
const notEditableDesc = "Refused at plan when the pack sets `editable.advanced_mode: false`."
