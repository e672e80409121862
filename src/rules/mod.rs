//! Guardrail rules (being written).
