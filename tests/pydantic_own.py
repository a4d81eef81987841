"""A model written by pydantic's own serializer of its class: the reference the tests of ``dumps``
compare its bytes with.

``model_dump_json`` is no such reference since issue 21: a phi-wire model class runs ``dumps``'s
serializer as its own (``phi_wire.serde._write``). pydantic's is built here from the class's core
schema, each nested class's from its own (``_use_prebuilt=False``: else the serializers ``dumps``
installed on them would be reused), with the Python serializer functions the models declare
(``LlmMessageBase``'s sort, ``JsonValue``'s).
"""

from __future__ import annotations

from pydantic import BaseModel
from pydantic_core import SchemaSerializer


def pydantic_json(value: BaseModel, pretty: bool = False) -> str:
    """``value`` as pydantic's own serializer writes it, a value of the wrong type an error."""
    own = SchemaSerializer(type(value).__pydantic_core_schema__, _use_prebuilt=False)
    return own.to_json(value, indent=2 if pretty else None, warnings="error").decode()
