export default function Screen() { return <p>…</p>; }
