"""The static types of what ``phi_wire.convert`` takes and gives: each format's values.

A conversion gives a value of its target format: a model or enum member of one of that format's
versions (a converter writes the newest; ``source == target`` gives the value back as it is), a
list of them (a message list, an event stream, a session file's entries), or None for a single
value that has no counterpart at all (a clark-agent event phi-core has no event for; its loss
says so). These aliases name those sets for annotations; ``convert(value,
target="phi-core").value`` is a ``PhiCoreValue``.
Importing this module imports every format's models (``phi_wire.convert`` itself does not).
"""

from __future__ import annotations

from collections.abc import Sequence

from typing_extensions import TypeAliasType

import phi_wire.clark_agent as _clark_agent
import phi_wire.operator_use as _operator_use
import phi_wire.operator_use_d1cdaad8 as _operator_use_d1cdaad8
import phi_wire.pi_0_73 as _pi_0_73
import phi_wire.pi_1_5 as _pi_1_5
import phi_wire.v0_8 as _v0_8
import phi_wire.v0_10 as _v0_10

__all__ = [
    "AnyItem",
    "AnyValue",
    "ClarkAgentItem",
    "ClarkAgentValue",
    "Convertible",
    "OperatorUseItem",
    "OperatorUseValue",
    "PhiCoreItem",
    "PhiCoreValue",
    "PiItem",
    "PiValue",
]

PhiCoreItem = TypeAliasType("PhiCoreItem", _v0_8.WireValue | _v0_10.WireValue)
"""One phi-core value: a model or enum member of phi-core 0.8 or 0.10."""
PhiCoreValue = TypeAliasType("PhiCoreValue", PhiCoreItem | list[PhiCoreItem] | None)
"""What a conversion to phi-core gives: one phi-core value, a list of them, or None."""

ClarkAgentItem = TypeAliasType("ClarkAgentItem", _clark_agent.WireValue)
"""One clark-agent value: a model or enum member of clark-agent 0.4."""
ClarkAgentValue = TypeAliasType("ClarkAgentValue", ClarkAgentItem | list[ClarkAgentItem] | None)
"""What a conversion to clark-agent gives: one clark-agent value, a list of them, or None."""

OperatorUseItem = TypeAliasType(
    "OperatorUseItem", _operator_use.WireValue | _operator_use_d1cdaad8.WireValue
)
"""One Operator-Use value: a model or enum member of either layout."""
OperatorUseValue = TypeAliasType("OperatorUseValue", OperatorUseItem | list[OperatorUseItem] | None)
"""What a conversion to Operator-Use gives: one Operator-Use value, a list of them (a
``SessionFileLines`` is one), or None."""

PiItem = TypeAliasType("PiItem", _pi_0_73.WireValue | _pi_1_5.WireValue)
"""One pi value: a model or enum member of pi 0.73 or 1.5."""
PiValue = TypeAliasType("PiValue", PiItem | list[PiItem] | None)
"""What a conversion to pi gives: one pi value, a list of them (a session file's ``JsonLines``
is one), or None."""

AnyItem = TypeAliasType("AnyItem", PhiCoreItem | ClarkAgentItem | OperatorUseItem | PiItem)
"""One value of any format."""
AnyValue = TypeAliasType("AnyValue", PhiCoreValue | ClarkAgentValue | OperatorUseValue | PiValue)
"""What a conversion to a format named at run time gives."""
Convertible = TypeAliasType("Convertible", AnyItem | Sequence[AnyItem])
"""What ``convert`` takes: a value of any format, or a sequence of them (a ``SessionFileLines``
included)."""
