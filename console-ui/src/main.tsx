import { render } from 'preact';
import { App } from './App';
import './styles.css';
import './addresses.css';

render(<App />, document.getElementById('app')!);
