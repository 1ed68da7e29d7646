import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ConsoleApp } from './console/ConsoleApp';
import { PortalApp } from './portal/PortalApp';
import './styles.css';

const root = createRoot(document.getElementById('root')!);
const isPortal = window.location.pathname === '/portal' || window.location.pathname.startsWith('/portal/');
root.render(<StrictMode>{isPortal ? <PortalApp /> : <ConsoleApp />}</StrictMode>);
