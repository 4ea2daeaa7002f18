-- A one-stage valid/ready stream around the hand-written E5M2 -> FP32 decoder (e5m2_to_fp32.vhd), for
-- fpforge's tests: latency 1, active-high reset, the payload fields as separate ports.
library ieee;
use ieee.std_logic_1164.all;

entity e5m2_stream is
  port (
    clock     : in  std_logic;
    reset     : in  std_logic;
    in_valid  : in  std_logic;
    in_ready  : out std_logic;
    in_code   : in  std_logic_vector(7 downto 0);
    out_valid : out std_logic;
    out_ready : in  std_logic;
    out_value : out std_logic_vector(31 downto 0)
  );
end entity;

architecture rtl of e5m2_stream is
  signal decoded : std_logic_vector(31 downto 0);
  signal valid_r : std_logic := '0';
  signal value_r : std_logic_vector(31 downto 0) := (others => '0');
  signal ready   : std_logic;
begin
  dec : entity work.e5m2_to_fp32 port map (code => in_code, value => decoded);
  ready <= out_ready or not valid_r;
  in_ready <= ready;
  out_valid <= valid_r;
  out_value <= value_r;

  stage : process (clock)
  begin
    if rising_edge(clock) then
      if reset = '1' then
        valid_r <= '0';
      elsif ready = '1' then
        valid_r <= in_valid;
        if in_valid = '1' then
          value_r <= decoded;
        end if;
      end if;
    end if;
  end process;
end architecture;
