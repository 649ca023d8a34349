from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListStrategiesRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListStrategiesResponse(_message.Message):
    __slots__ = ["strategies"]
    STRATEGIES_FIELD_NUMBER: _ClassVar[int]
    strategies: _containers.RepeatedCompositeFieldContainer[StrategyInfo]
    def __init__(self, strategies: _Optional[_Iterable[_Union[StrategyInfo, _Mapping]]] = ...) -> None: ...

class OptionInfo(_message.Message):
    __slots__ = ["default_value", "description", "name"]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    default_value: str
    description: str
    name: str
    def __init__(self, name: _Optional[str] = ..., default_value: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class StrategyInfo(_message.Message):
    __slots__ = ["description", "input", "name", "options"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    description: str
    input: str
    name: str
    options: _containers.RepeatedCompositeFieldContainer[OptionInfo]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., input: _Optional[str] = ..., options: _Optional[_Iterable[_Union[OptionInfo, _Mapping]]] = ...) -> None: ...
