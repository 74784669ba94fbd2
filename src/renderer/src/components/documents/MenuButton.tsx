/**
 * A button that opens a menu (the WAI-ARIA menu button pattern): Enter, Space or ↓ opens it on
 * its first item (the chosen one in a menu of choices), ↑ on its last; ↑/↓/Home/End move, Enter
 * or Space picks, Escape closes it and gives the focus back to the button, Tab or a click
 * elsewhere closes it.
 */
import {
  useEffect,
  useId,
  useRef,
  useState,
  type KeyboardEvent as ReactKeyboardEvent,
  type ReactNode,
  type RefObject,
} from 'react';
import { menuIndex } from '../../lib/menu-keys';

export interface MenuChoice {
  key: string;
  label: string;
  /** In a menu of choices (menuitemradio): whether this one is the current one. */
  checked?: boolean;
  onSelect(): void;
}

interface MenuButtonProps {
  /** What the button shows. */
  children: ReactNode;
  /** The button's accessible name, where what it shows is not enough ("⋯"). */
  label?: string;
  title?: string;
  className: string;
  menuLabel: string;
  items: MenuChoice[];
  tabIndex?: number;
  /** The button itself, for whoever returns the focus to it after an item's action. */
  buttonRef?: RefObject<HTMLButtonElement | null>;
}

/** The open menu: its items, one per choice, reached with the arrow keys (none is a Tab stop). */
function MenuItems({
  id,
  label,
  items,
  onKeyDown,
  onPick,
}: {
  id: string;
  label: string;
  items: MenuChoice[];
  onKeyDown: (e: ReactKeyboardEvent) => void;
  onPick: (item: MenuChoice) => void;
}) {
  return (
    <div className="popover doc-menu" role="menu" id={id} aria-label={label} onKeyDown={onKeyDown}>
      {items.map((item) => (
        <button
          key={item.key}
          type="button"
          className="doc-menu-item"
          role={item.checked === undefined ? 'menuitem' : 'menuitemradio'}
          aria-checked={item.checked}
          tabIndex={-1}
          onClick={() => onPick(item)}
        >
          <span className="doc-menu-check" aria-hidden="true">
            {item.checked ? '✓' : ''}
          </span>
          {item.label}
        </button>
      ))}
    </div>
  );
}

/** Which item has the focus (null: closed); a click outside closes it. */
function useMenuState(wrap: RefObject<HTMLElement | null>) {
  const [focusAt, setFocusAt] = useState<number | null>(null);
  const open = focusAt !== null;
  useEffect(() => {
    if (focusAt !== null) wrap.current?.querySelectorAll<HTMLElement>('[role^="menuitem"]')[focusAt]?.focus();
  }, [focusAt, wrap]);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (!wrap.current?.contains(e.target as Node)) setFocusAt(null);
    };
    window.addEventListener('mousedown', close);
    return () => window.removeEventListener('mousedown', close);
  }, [open, wrap]);
  return { open, setFocusAt };
}

export function MenuButton({
  children,
  label,
  title,
  className,
  menuLabel,
  items,
  tabIndex,
  buttonRef,
}: MenuButtonProps) {
  const id = useId();
  const own = useRef<HTMLButtonElement>(null);
  const button = buttonRef ?? own;
  const wrap = useRef<HTMLSpanElement>(null);
  const { open, setFocusAt } = useMenuState(wrap);
  const itemEls = () => [...(wrap.current?.querySelectorAll<HTMLElement>('[role^="menuitem"]') ?? [])];
  const first = Math.max(
    0,
    items.findIndex((i) => i.checked),
  );
  const onButtonKey = (e: ReactKeyboardEvent) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    e.preventDefault();
    setFocusAt(e.key === 'ArrowDown' ? first : items.length - 1);
  };
  const onMenuKey = (e: ReactKeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      setFocusAt(null);
      button.current?.focus();
      return;
    }
    if (e.key === 'Tab') {
      setFocusAt(null);
      return;
    }
    const to = menuIndex(itemEls().indexOf(document.activeElement as HTMLElement), items.length, e.key);
    if (to === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    itemEls()[to]?.focus();
  };
  const pick = (item: MenuChoice) => {
    setFocusAt(null);
    // The focus goes back to the button first, so an action that moves it (a form) takes it from there.
    button.current?.focus();
    item.onSelect();
  };
  return (
    <span className="doc-menu-wrap" ref={wrap}>
      <button
        type="button"
        ref={button}
        className={className}
        aria-label={label}
        title={title}
        tabIndex={tabIndex}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => setFocusAt(open ? null : first)}
        onKeyDown={onButtonKey}
      >
        {children}
      </button>
      {open && <MenuItems id={id} label={menuLabel} items={items} onKeyDown={onMenuKey} onPick={pick} />}
    </span>
  );
}
