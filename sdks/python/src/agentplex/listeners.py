"""The permission and question listeners of a session (``on``, ``off`` and their shorthands),
shared by ``Session`` and ``AsyncSession``."""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar, overload

from typing_extensions import Self

P = TypeVar("P")
Q = TypeVar("Q")


class Listeners(Generic[P, Q]):
    """A session's listeners: ``P`` the type of its permission handlers, ``Q`` of its question
    handlers."""

    def __init__(self) -> None:
        self._permission_listeners: list[P] = []
        self._question_listeners: list[Q] = []

    @overload
    def on(self, event: Literal["permission"], listener: P) -> Self: ...

    @overload
    def on(self, event: Literal["question"], listener: Q) -> Self: ...

    def on(self, event: Literal["permission", "question"], listener: Any) -> Self:
        """Adds a listener of the permission requests (``"permission"``) or questions
        (``"question"``) that ``events()``, ``stream()`` and ``prompt()`` see on this session.

        Who answers: the call's own ``on_permission``/``on_question`` first, then the listeners
        in the order they were added; the first that returns a reply answers and the rest are
        not asked. Returning None only watches. When nobody replies the request stays pending
        for you (``reply_permission``, ``reply_question``, ``reject_question``). A listener that
        raises ends the call with its error. Adding the same function twice adds it once.
        """
        listeners = self._listeners(event)
        if listener not in listeners:
            listeners.append(listener)
        return self

    @overload
    def off(self, event: Literal["permission"], listener: P) -> Self: ...

    @overload
    def off(self, event: Literal["question"], listener: Q) -> Self: ...

    def off(self, event: Literal["permission", "question"], listener: Any) -> Self:
        """Removes a listener added with ``on`` (nothing happens when it is not there)."""
        listeners = self._listeners(event)
        if listener in listeners:
            listeners.remove(listener)
        return self

    def on_permission(self, listener: P) -> Self:
        """``on("permission", listener)``."""
        return self.on("permission", listener)

    def off_permission(self, listener: P) -> Self:
        """``off("permission", listener)``."""
        return self.off("permission", listener)

    def on_question(self, listener: Q) -> Self:
        """``on("question", listener)``."""
        return self.on("question", listener)

    def off_question(self, listener: Q) -> Self:
        """``off("question", listener)``."""
        return self.off("question", listener)

    def _listeners(self, event: str) -> list[Any]:
        if event == "permission":
            return self._permission_listeners
        if event == "question":
            return self._question_listeners
        raise ValueError(f'no such event: {event!r} (listeners are for "permission" and "question")')
